-- Self-scheduled play to the letter (issue 27; seed 003 rules 3.3 and 8).
-- A game nobody has proposed anything for waits on nobody (rule 8.2 is for not answering a
-- proposal): open games stop waiting.
UPDATE game_schedules
   SET waiting_on = NULL, waiting_since = NULL, leader_told_at = NULL
 WHERE state = 'open';
-- The round's deadline at which the leader was told that this game is not scheduled (told again
-- if the deadline is extended).
ALTER TABLE game_schedules ADD COLUMN unscheduled_told_for TIMESTAMPTZ;
-- New thread messages: the leader told of an unscheduled game near the deadline, and a replay
-- after a double crash (rule 3.3).
ALTER TABLE schedule_messages DROP CONSTRAINT schedule_messages_kind_check;
ALTER TABLE schedule_messages ADD CONSTRAINT schedule_messages_kind_check
    CHECK (kind IN ('propose', 'accept', 'missed', 'leader_told', 'forfeit', 'reinstate',
                    'unscheduled', 'replay'));
