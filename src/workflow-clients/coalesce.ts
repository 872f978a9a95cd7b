/**
 * Merges calls that only say "look again" (the receiver reads the current state itself, so two such calls ask
 * no more than one). Per key: the first call sends at once; calls that arrive while a send is under way share
 * one send that starts after it, so every call is followed by a send that began after the call was made (what
 * a caller changed before calling is seen). Each caller gets the outcome of the send that covers it: a failure
 * reaches every caller it covered, so their retries stay their own.
 */
export function coalescing<K, A>(send: (key: K, arg: A) => Promise<void>): (key: K, arg: A) => Promise<void> {
  const underWay = new Map<K, Promise<void>>();
  const queued = new Map<K, Promise<void>>();
  const start = (key: K, arg: A): Promise<void> => {
    const sent: Promise<void> = send(key, arg).finally(() => {
      if (underWay.get(key) === sent) underWay.delete(key);
    });
    underWay.set(key, sent);
    return sent;
  };
  return (key, arg) => {
    const waiting = queued.get(key);
    if (waiting) return waiting;
    const current = underWay.get(key);
    if (!current) return start(key, arg);
    const next = current
      .catch(() => undefined)
      .then(() => {
        queued.delete(key);
        return start(key, arg);
      });
    queued.set(key, next);
    return next;
  };
}
