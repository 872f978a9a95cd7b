-- Spend admission (issue 17): a launch is admitted only when the balance, less what live instances have run up
-- and not been charged yet, covers the admission window of every live instance plus the new one. The launch
-- writes its row (its reservation) in the admission's own transaction, before its workflow starts, and the
-- price it was admitted at is kept here: it counts toward the burn rate until the provider's own price is
-- known, and it meters the instance when the provider never says a price.
ALTER TABLE instances ADD COLUMN quote_per_hour_micros bigint CHECK (quote_per_hour_micros >= 0);
