DELETE FROM schedule_messages WHERE kind IN ('unscheduled', 'replay');
ALTER TABLE schedule_messages DROP CONSTRAINT schedule_messages_kind_check;
ALTER TABLE schedule_messages ADD CONSTRAINT schedule_messages_kind_check
    CHECK (kind IN ('propose', 'accept', 'missed', 'leader_told', 'forfeit', 'reinstate'));
ALTER TABLE game_schedules DROP COLUMN unscheduled_told_for;
