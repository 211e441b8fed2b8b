-- Intake URLs through the API (issue 12): the live token is also kept sealed (AES-GCM under the
-- service's secrets key, like destination secrets) so GET /campaigns/{id}/intake-url can show
-- the URL again; tokens made before this migration have none and show no URL until replaced.
-- service_settings holds facts a serving instance records for the operator CLI, such as the
-- PUBLIC_URL it serves on, so intake URLs printed by the CLI use the server's origin.
ALTER TABLE intake_tokens ADD COLUMN token_sealed text;

CREATE TABLE service_settings (
    name        text PRIMARY KEY,
    value       text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
