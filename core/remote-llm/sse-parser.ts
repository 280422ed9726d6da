// Incremental Server-Sent Events parser (WHATWG HTML "event stream interpretation"): text arrives in arbitrary
// pieces (a network chunk can end mid-line, mid-field or between the CR and LF of a CRLF), lines end in LF, CRLF or
// CR, ":" lines are comments (servers send them as keep-alives), "data:" lines accumulate and a blank line
// dispatches. Byte decoding happens before this (TextDecoder with stream: true keeps split UTF-8 intact).

export interface SseEvent {
  /** "message" unless the server named it. */
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private eventName = '';
  /** The previous piece ended in CR: a LF at the start of the next piece belongs to the same line break. */
  private pendingCr = false;
  private started = false;

  push(text: string): SseEvent[] {
    let piece = text;
    if (!this.started && piece.length > 0) {
      this.started = true;
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
    }
    if (this.pendingCr && piece.startsWith('\n')) piece = piece.slice(1);
    this.pendingCr = false;
    this.buffer += piece;
    const events: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      // A CR at the very end may be the first half of a CRLF split across pieces.
      if (m[0] === '\r' && m.index === this.buffer.length - 1) this.pendingCr = true;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev) events.push(ev);
    }
    return events;
  }

  /** End of stream: per spec an unterminated final event is discarded; we keep it, as many servers omit the blank line. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer.length > 0) {
      const ev = this.line(this.buffer);
      if (ev) events.push(ev);
      this.buffer = '';
    }
    const last = this.line('');
    if (last) events.push(last);
    return events;
  }

  private line(line: string): SseEvent | null {
    if (line === '') {
      if (this.data.length === 0) {
        this.eventName = '';
        return null;
      }
      const ev = { event: this.eventName || 'message', data: this.data.join('\n') };
      this.data = [];
      this.eventName = '';
      return ev;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventName = value;
    // id and retry are irrelevant to a one-shot completion stream.
    return null;
  }
}
