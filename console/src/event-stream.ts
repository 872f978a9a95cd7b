/**
 * The `text/event-stream` format (HTML Living Standard, "Server-sent events") for a stream read with fetch:
 * chunks in, whole events out.
 */
/**
 * Splits a text/event-stream into events: `data:` lines joined with newlines, `event:` naming it (default
 * `message`), `:` comments (keep-alives) skipped; an event ends at a blank line. A line may arrive split across
 * chunks.
 */
export function parseEventStream(): { push(chunk: string): { event: string; data: string }[] } {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  return {
    push(chunk) {
      buffer += chunk;
      const out: { event: string; data: string }[] = [];
      let nl: number;
      // A CR that ends the buffer may be the first half of a CRLF still to come: it waits for the next chunk.
      while ((nl = buffer.search(/\r\n|\r(?!$)|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (data.length) out.push({ event: event || 'message', data: data.join('\n') });
          event = '';
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') data.push(value);
          else if (field === 'event') event = value;
        }
      }
      return out;
    },
  };
}
