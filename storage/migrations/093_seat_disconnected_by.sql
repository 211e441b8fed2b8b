-- A seat a person disconnected in the application: who did it (user:<id>). The engine does not
-- act through a disconnected seat, and a provider's report that the account works again does
-- not bring back a seat a person disconnected; connecting it again clears this.
ALTER TABLE linkedin_accounts ADD COLUMN disconnected_by text;
