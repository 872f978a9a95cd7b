/**
 * The console's reader of `text/event-stream` (the log contract: a line per default event, keep-alive comments,
 * `event: end` with the status and exit code), fed the way fetch hands a stream over: in chunks cut anywhere.
 */
import { parseEventStream } from '../../console/src/event-stream';

const LOG =
  ': keep-alive\n\n' +
  'data: epoch 1 loss=0.91\n\n' +
  'data:no space after the colon\n\n' +
  ': keep-alive\n\n' +
  'data: \n\n' +
  'data: first half\ndata: second half\n\n' +
  'event: end\ndata: {"status":"failed","exit_code":3}\n\n';

const EXPECTED = [
  { event: 'message', data: 'epoch 1 loss=0.91' },
  { event: 'message', data: 'no space after the colon' },
  { event: 'message', data: '' },
  { event: 'message', data: 'first half\nsecond half' },
  { event: 'end', data: '{"status":"failed","exit_code":3}' },
];

function feed(chunks: string[]) {
  const stream = parseEventStream();
  return chunks.flatMap((c) => stream.push(c));
}

test('the whole stream at once: lines in order, comments skipped, the end event with its JSON', () => {
  expect(feed([LOG])).toEqual(EXPECTED);
});

test('the same events whatever the chunks: every cut point, and one character at a time', () => {
  for (let cut = 1; cut < LOG.length; cut++) expect(feed([LOG.slice(0, cut), LOG.slice(cut)])).toEqual(EXPECTED);
  expect(feed([...LOG])).toEqual(EXPECTED);
});

test('CRLF and CR line ends read as LF, also with a CRLF cut between its two characters', () => {
  const crlf = LOG.replace(/\n/g, '\r\n');
  for (let cut = 1; cut < crlf.length; cut++) expect(feed([crlf.slice(0, cut), crlf.slice(cut)])).toEqual(EXPECTED);
  expect(feed([LOG.replace(/\n/g, '\r') + 'x'])).toEqual(EXPECTED);
});

test('an event not yet closed by its blank line is held back', () => {
  expect(feed(['data: partial\n'])).toEqual([]);
});
