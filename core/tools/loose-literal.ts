// A forgiving reader for what small models write inside tool calls: JSON with single quotes, bare keys,
// trailing commas or a missing closing brace, and Python literals (True/None, keyword arguments).
// It only builds plain data; nothing is ever executed.

export class LooseSyntaxError extends Error {}

export type Literal = string | number | boolean | null | Literal[] | { [k: string]: Literal };

export class LooseReader {
  pos = 0;
  constructor(readonly src: string) {}

  atEnd(): boolean {
    this.ws();
    return this.pos >= this.src.length;
  }
  ws(): void {
    while (this.pos < this.src.length && /[\s]/.test(this.src[this.pos]!)) this.pos++;
  }
  peek(): string {
    this.ws();
    return this.src[this.pos] ?? '';
  }
  eat(ch: string): boolean {
    if (this.peek() === ch) {
      this.pos++;
      return true;
    }
    return false;
  }

  value(): Literal {
    const c = this.peek();
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"' || c === "'") return this.string();
    if (c === '-' || c === '+' || c === '.' || /\d/.test(c)) return this.number();
    const word = this.identifier();
    switch (word) {
      case 'true':
      case 'True':
        return true;
      case 'false':
      case 'False':
        return false;
      case 'null':
      case 'None':
      case 'undefined':
        return null;
      case '':
        throw new LooseSyntaxError(`unexpected "${c}" at ${this.pos}`);
      default:
        return word; // a bare word is most likely an unquoted string
    }
  }

  identifier(): string {
    this.ws();
    const m = /^[A-Za-z_$][\w$.-]*/.exec(this.src.slice(this.pos));
    if (!m) return '';
    this.pos += m[0].length;
    return m[0];
  }

  string(): string {
    const quote = this.src[this.pos++]!;
    let out = '';
    while (this.pos < this.src.length) {
      const ch = this.src[this.pos++]!;
      if (ch === quote) return out;
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const esc = this.src[this.pos++] ?? '';
      const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
      if (esc === 'u') {
        const hex = this.src.slice(this.pos, this.pos + 4);
        if (/^[0-9a-fA-F]{4}$/.test(hex)) {
          out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 4;
        }
      } else out += map[esc] ?? esc;
    }
    return out; // unterminated at end of a truncated stream: keep what we have
  }

  number(): number {
    const m = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(this.src.slice(this.pos));
    if (!m) throw new LooseSyntaxError(`bad number at ${this.pos}`);
    this.pos += m[0].length;
    return Number(m[0]);
  }

  array(): Literal[] {
    this.pos++; // [
    const out: Literal[] = [];
    for (;;) {
      if (this.atEnd() || this.eat(']')) return out;
      out.push(this.value());
      if (!this.eat(',') && this.peek() !== ']' && !this.atEnd()) throw new LooseSyntaxError(`expected , or ] at ${this.pos}`);
    }
  }

  object(): { [k: string]: Literal } {
    this.pos++; // {
    const out: { [k: string]: Literal } = {};
    for (;;) {
      if (this.atEnd() || this.eat('}')) return out;
      const c = this.peek();
      const key = c === '"' || c === "'" ? this.string() : this.identifier();
      if (!key) throw new LooseSyntaxError(`expected key at ${this.pos}`);
      if (!this.eat(':') && !this.eat('=')) throw new LooseSyntaxError(`expected : at ${this.pos}`);
      out[key] = this.value();
      if (!this.eat(',') && this.peek() !== '}' && !this.atEnd()) throw new LooseSyntaxError(`expected , or } at ${this.pos}`);
    }
  }
}

/** Parses one or more concatenated values ('{..}{..}' or '{..}\n{..}'); throws LooseSyntaxError. */
export function parseLooseValues(src: string): Literal[] {
  const r = new LooseReader(src.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  const out: Literal[] = [];
  while (!r.atEnd()) {
    out.push(r.value());
    r.eat(',');
  }
  return out;
}

export interface PythonicCall {
  name: string;
  arguments: Record<string, Literal>;
}

/** Parses LFM2's Pythonic list: `[get_weather(location="Oslo"), calculate(expression='2+2')]` (brackets optional). */
export function parsePythonicCalls(src: string): PythonicCall[] {
  const r = new LooseReader(src.trim());
  const bracketed = r.eat('[');
  const calls: PythonicCall[] = [];
  for (;;) {
    if (r.atEnd() || (bracketed && r.eat(']'))) break;
    const name = r.identifier();
    if (!name) throw new LooseSyntaxError(`expected a function name at ${r.pos}`);
    if (!r.eat('(')) throw new LooseSyntaxError(`expected ( after ${name}`);
    const args: Record<string, Literal> = {};
    let positional = 0;
    for (;;) {
      if (r.atEnd() || r.eat(')')) break;
      const save = r.pos;
      const key = r.identifier();
      if (key && (r.eat('=') || r.eat(':'))) args[key] = r.value();
      else {
        r.pos = save;
        args[`_${positional++}`] = r.value(); // positional argument; the validator maps it if it can
      }
      if (!r.eat(',') && r.peek() !== ')' && !r.atEnd()) throw new LooseSyntaxError(`expected , or ) at ${r.pos}`);
    }
    calls.push({ name, arguments: args });
    r.eat(',');
  }
  return calls;
}
