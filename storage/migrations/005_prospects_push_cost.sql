-- Less work per inserted prospect (issue 2: lead push throughput).
--
-- prospects_enrichment_due is read by no query: the enrichment worker claims pushed leads only,
-- through prospects_enrichment_queue (migration 002). It also kept every prospect the engine or
-- the inbox creates (never pushed, enrichment 'pending' forever) indexed for nothing. Each index
-- costs about 1 ms per 100-lead push on the 2-core test machine.
DROP INDEX prospects_enrichment_due;

-- One foreign-key check per inserted prospect instead of two. A prospect's org_id must be its
-- campaign's: one composite key to campaigns (id, org_id) says exactly that (the two
-- single-column keys did not), and deleting an organization still deletes its prospects, through
-- its campaigns (campaigns.org_id is ON DELETE CASCADE).
ALTER TABLE campaigns ADD CONSTRAINT campaigns_id_org UNIQUE (id, org_id);
ALTER TABLE prospects
    DROP CONSTRAINT prospects_campaign_id_fkey,
    DROP CONSTRAINT prospects_org_id_fkey,
    ADD CONSTRAINT prospects_campaign_org_fkey FOREIGN KEY (campaign_id, org_id)
        REFERENCES campaigns (id, org_id) ON DELETE CASCADE;
