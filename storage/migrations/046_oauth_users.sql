-- A grant and a pending code act for a person of the application: when the person is deleted,
-- what they allowed goes with them.
ALTER TABLE oauth_grants ADD CONSTRAINT oauth_grants_user_fk
    FOREIGN KEY (user_id) REFERENCES app_users(id) ON DELETE CASCADE;
ALTER TABLE oauth_codes ADD CONSTRAINT oauth_codes_user_fk
    FOREIGN KEY (user_id) REFERENCES app_users(id) ON DELETE CASCADE;
CREATE INDEX oauth_grants_user ON oauth_grants (user_id);
CREATE INDEX oauth_codes_user ON oauth_codes (user_id);
