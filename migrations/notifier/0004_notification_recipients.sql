-- Per-recipient memory of an email notification (ADR 0056, amendment "one message, several
-- recipients"): delivered_to holds the addresses that accepted it in an earlier attempt,
-- refused_to those refused for good (SMTP 5yz). Neither is sent to again; a requeue empties
-- refused_to so the operator's retry includes them, and keeps delivered_to (no duplicates).
ALTER TABLE notifications
  ADD COLUMN IF NOT EXISTS delivered_to text[] NOT NULL DEFAULT '{}',
  ADD COLUMN IF NOT EXISTS refused_to   text[] NOT NULL DEFAULT '{}';
