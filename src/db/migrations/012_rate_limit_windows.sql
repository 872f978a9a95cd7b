-- Rate limits shared by every API process (src/http/shared-rate-limit.ts). Per (key, fixed window) the
-- requests granted so far. A process reserves a block of requests at a time (a share of what is left) and
-- spends it in memory, so the sum over all processes never passes the limit and the hot path makes no
-- database round trip. Unlogged: counts of the current minute need no crash safety.
CREATE UNLOGGED TABLE rate_limit_windows (
  key           text NOT NULL,
  window_start  bigint NOT NULL,        -- epoch ms of the window's start
  count         integer NOT NULL,       -- requests granted to processes in this window
  PRIMARY KEY (key, window_start)
);

-- Grants each ask min(want, max - count) (never past max), atomically per key; keys in the given order
-- (callers sort them, so two processes never lock the same rows in opposite orders).
CREATE FUNCTION rate_limit_reserve(p_keys text[], p_window bigint, p_wants int4[], p_maxes int4[])
RETURNS TABLE (key text, granted int4, total int4) LANGUAGE plpgsql AS $$
DECLARE
  i int;
  current_count int4;
  grant_count int4;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    INSERT INTO rate_limit_windows AS w (key, window_start, count) VALUES (p_keys[i], p_window, 0)
      ON CONFLICT ON CONSTRAINT rate_limit_windows_pkey DO NOTHING;
    SELECT w.count INTO current_count FROM rate_limit_windows w
      WHERE w.key = p_keys[i] AND w.window_start = p_window FOR UPDATE;
    grant_count := greatest(0, least(p_wants[i], p_maxes[i] - current_count));
    IF grant_count > 0 THEN
      UPDATE rate_limit_windows w SET count = current_count + grant_count WHERE w.key = p_keys[i] AND w.window_start = p_window;
    END IF;
    key := p_keys[i];
    granted := grant_count;
    total := current_count + grant_count;
    RETURN NEXT;
  END LOOP;
END $$;
