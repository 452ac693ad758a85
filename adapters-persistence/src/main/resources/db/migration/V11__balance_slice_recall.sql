-- An instance that cannot cover a hold from the balance asks the others for the unused money of their slices of the
-- account (docs/decisions.md, "Billing"): it sets recalled on their rows, and each instance looks for its recalled
-- rows a few times a second, gives their unused part back to the balance and clears the flag. Without it, a balance
-- spread over the slices of several instances refused requests it could pay for until the slices went idle.
ALTER TABLE balance_slice ADD COLUMN recalled boolean NOT NULL DEFAULT false;
-- What each instance looks up every 200 ms; almost always empty, so it costs nothing to keep.
CREATE INDEX balance_slice_recalled ON balance_slice (instance_id) WHERE recalled;
