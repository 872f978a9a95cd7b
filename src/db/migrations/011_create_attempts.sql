-- How many times a launch has asked its provider to create: the first ask goes straight to the create; any
-- later one (a retry, a replay on another worker) first looks for an instance carrying the launch's tagged name.
ALTER TABLE instances ADD COLUMN create_attempts integer NOT NULL DEFAULT 0;
