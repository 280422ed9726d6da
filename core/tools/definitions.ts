// The tool catalogue: one place that says what each tool is called, what it takes (zod, validated on every call
// whoever made it) and how it is described to the LLM (JSON Schema for the chat template's `tools`).
// Kept to four short tools: small models choose better among few, briefly described tools.
import { z } from 'zod';
import type { ToolCall, ToolName } from './types';

export const TOOL_SCHEMAS = {
  get_weather: z.object({
    location: z.string().trim().min(2).max(100).describe('City or place name, e.g. "Oslo"'),
    when: z.enum(['now', 'today', 'tomorrow']).optional().describe('Which day; default now'),
  }),
  wikipedia_lookup: z.object({
    topic: z.string().trim().min(1).max(200).describe('Article title or topic, e.g. "Ada Lovelace"'),
  }),
  calculate: z.object({
    expression: z.string().trim().min(1).max(300).describe('Arithmetic, e.g. "12.5 * (3 + 4)" or "15% of 80"'),
  }),
  get_time: z.object({
    location: z.string().trim().max(100).optional().describe('City or IANA time zone; omit for local time'),
  }),
} satisfies Record<ToolName, z.ZodType>;

const DESCRIPTIONS: Record<ToolName, string> = {
  get_weather: 'Current weather and a short forecast for a place.',
  wikipedia_lookup: 'Short summary of a Wikipedia article about a person, place or thing.',
  calculate: 'Exact arithmetic. Use for any maths instead of computing yourself.',
  get_time: 'Current time and date, optionally in another city or time zone.',
};

export interface ToolDefinition {
  name: ToolName;
  description: string;
  schema: z.ZodType;
  /** JSON Schema of the arguments, as chat templates expect under `function.parameters`. */
  parameters: Record<string, unknown>;
}

export const TOOL_NAMES = Object.keys(TOOL_SCHEMAS) as ToolName[];

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = TOOL_NAMES.map((name) => {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(TOOL_SCHEMAS[name]) as Record<string, unknown>;
  return { name, description: DESCRIPTIONS[name], schema: TOOL_SCHEMAS[name], parameters };
});

/** The `tools` array for `tokenizer.apply_chat_template(messages, { tools })` (OpenAI function format). */
export function chatTemplateTools(): {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}[] {
  return TOOL_DEFINITIONS.map((d) => ({
    type: 'function',
    function: { name: d.name, description: d.description, parameters: d.parameters },
  }));
}

/** Names small models commonly invent for the same tools. */
const NAME_ALIASES: Record<string, ToolName> = {
  weather: 'get_weather',
  get_current_weather: 'get_weather',
  get_forecast: 'get_weather',
  wikipedia: 'wikipedia_lookup',
  search_wikipedia: 'wikipedia_lookup',
  wiki: 'wikipedia_lookup',
  calculator: 'calculate',
  calc: 'calculate',
  math: 'calculate',
  time: 'get_time',
  get_current_time: 'get_time',
  get_date: 'get_time',
  clock: 'get_time',
};

/** Argument names small models commonly use instead of ours. */
const ARG_ALIASES: Record<ToolName, Record<string, string>> = {
  get_weather: { _0: 'location', city: 'location', place: 'location', q: 'location', query: 'location', day: 'when' },
  wikipedia_lookup: { _0: 'topic', query: 'topic', title: 'topic', subject: 'topic', q: 'topic', search: 'topic' },
  calculate: { _0: 'expression', expr: 'expression', input: 'expression', query: 'expression', formula: 'expression' },
  get_time: { _0: 'location', city: 'location', place: 'location', timezone: 'location', time_zone: 'location', tz: 'location' },
};

export type ValidatedCall = { ok: true; call: ToolCall } | { ok: false; name: string; error: string };

export function resolveToolName(name: string): ToolName | null {
  const key = name.trim().toLowerCase();
  if ((TOOL_NAMES as string[]).includes(key)) return key as ToolName;
  return NAME_ALIASES[key] ?? null;
}

/** Checks a raw call against the tool's zod schema after mapping name/argument aliases. */
export function validateToolCall(name: string, args: unknown): ValidatedCall {
  const tool = resolveToolName(name);
  if (!tool) return { ok: false, name, error: `unknown tool "${name}"` };
  const raw = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const mapped: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) mapped[ARG_ALIASES[tool][k] ?? k] = v;
  // Numbers are fine where text is expected ("expression": 2+2 evaluated by a sloppy model is not; 4 is).
  for (const [k, v] of Object.entries(mapped)) if (typeof v === 'number') mapped[k] = String(v);
  const parsed = TOOL_SCHEMAS[tool].safeParse(mapped);
  if (!parsed.success) {
    return {
      ok: false,
      name: tool,
      error: parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, call: { name: tool, arguments: parsed.data as Record<string, unknown> } };
}
