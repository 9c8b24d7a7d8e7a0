-- Results reported with a result slip's table code (issue 41, item 2): no account stands
-- behind such a report, so it names the seat the reporter said they hold and no user.
ALTER TABLE result_reports ALTER COLUMN reported_by_user DROP NOT NULL;
