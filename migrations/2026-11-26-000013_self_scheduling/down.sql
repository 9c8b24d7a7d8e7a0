DROP TABLE schedule_messages;
DROP TABLE game_schedules;
ALTER TABLE rounds DROP COLUMN self_scheduled_until;
