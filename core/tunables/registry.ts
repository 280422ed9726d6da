/**
 * The mechanism behind every threshold. Each area owns an exported section (a plain object that code reads at use
 * time) and registers it with `registerTunables` together with its limits; `setTunable('engine.endpointSilenceMs', 500)`
 * validates against those limits.
 *
 * Every context (background, offscreen document, its two workers, side panel, popup) has its own copy of this module.
 * The background owns the values: it validates a change here, persists the overrides and broadcasts them; every other
 * context applies them with `applyOverrides` (docs/architecture.md, "Tunables").
 */

export type TunableValue = number | boolean | string;
export type TunableSection = Record<string, TunableValue>;
/** Non-default values by path ("section.key"): what the owner persists and sends to every context. */
export type TunableOverrides = Record<string, TunableValue>;
export type TunablesSnapshot = Record<string, TunableSection>;

/** Numeric limits for a key; keys without limits still get type checks (and finiteness for numbers). */
export interface TunableLimit {
  min?: number;
  max?: number;
  integer?: boolean;
}

/** One knob as the debug panel and the tests see it. */
export interface TunableInfo {
  path: string;
  section: string;
  key: string;
  value: TunableValue;
  defaultValue: TunableValue;
  limit: TunableLimit;
}

interface RegisteredSection {
  values: TunableSection;
  limits: Readonly<Record<string, TunableLimit>>;
  defaults: Readonly<TunableSection>;
}

const sections = new Map<string, RegisteredSection>();
const listeners = new Set<() => void>();

/** Registers a section and returns the same (mutable) object so call sites read live values. */
export function registerTunables<T extends TunableSection>(
  name: string,
  values: T,
  limits: Partial<Record<keyof T & string, TunableLimit>> = {},
): T {
  if (sections.has(name)) throw new Error(`tunables: section "${name}" is already registered`);
  sections.set(name, { values, limits: limits as Record<string, TunableLimit>, defaults: { ...values } });
  return values;
}

export type SetTunableResult = { ok: true } | { ok: false; error: string };

function locate(path: string): { section: RegisteredSection; key: string } | string {
  const dot = path.indexOf('.');
  if (dot <= 0) return `path must be "section.key", got "${path}"`;
  const section = sections.get(path.slice(0, dot));
  const key = path.slice(dot + 1);
  if (!section) return `unknown section in "${path}"`;
  if (!Object.prototype.hasOwnProperty.call(section.values, key)) return `unknown key "${path}"`;
  return { section, key };
}

/** Why `value` is not acceptable for `path`, or null when it is. */
export function checkTunable(path: string, value: unknown): string | null {
  const found = locate(path);
  if (typeof found === 'string') return found;
  const current = found.section.values[found.key];
  if (typeof value !== typeof current) return `"${path}" expects a ${typeof current}, got ${typeof value}`;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return `"${path}" must be finite`;
    const limit = found.section.limits[found.key];
    if (limit?.integer && !Number.isInteger(value)) return `"${path}" must be an integer`;
    if (limit?.min !== undefined && value < limit.min) return `"${path}" must be >= ${limit.min}`;
    if (limit?.max !== undefined && value > limit.max) return `"${path}" must be <= ${limit.max}`;
  }
  return null;
}

/** Sets `section.key` after validating type and limits. Never throws; returns why a value was refused. */
export function setTunable(path: string, value: unknown): SetTunableResult {
  const error = checkTunable(path, value);
  if (error !== null) return { ok: false, error };
  const found = locate(path) as { section: RegisteredSection; key: string };
  found.section.values[found.key] = value as TunableValue;
  return { ok: true };
}

export function getTunable(path: string): TunableValue | undefined {
  const found = locate(path);
  return typeof found === 'string' ? undefined : found.section.values[found.key];
}

/** Restores one section (or all) to the values it was registered with; tests and benches call this between runs. */
export function resetTunables(sectionName?: string): void {
  for (const [name, section] of sections) {
    if (sectionName !== undefined && name !== sectionName) continue;
    Object.assign(section.values, section.defaults);
  }
}

/** A snapshot of every section, e.g. to print next to bench results. */
export function snapshotTunables(): TunablesSnapshot {
  const out: TunablesSnapshot = {};
  for (const [name, section] of sections) out[name] = { ...section.values };
  return out;
}

/** Every value that differs from its default, by path. */
export function tunableOverrides(): TunableOverrides {
  const out: TunableOverrides = {};
  for (const [name, section] of sections) {
    for (const [key, value] of Object.entries(section.values)) if (value !== section.defaults[key]) out[`${name}.${key}`] = value;
  }
  return out;
}

/**
 * Makes this context's values exactly the defaults plus `overrides` (what the owner sent), then tells the listeners.
 * Invalid entries are skipped and returned; the valid ones still apply.
 */
export function applyOverrides(overrides: Readonly<Record<string, unknown>>): string[] {
  resetTunables();
  const errors: string[] = [];
  for (const [path, value] of Object.entries(overrides)) {
    const result = setTunable(path, value);
    if (!result.ok) errors.push(result.error);
  }
  for (const listener of listeners) listener();
  return errors;
}

/** Called after every `applyOverrides`, e.g. to forward the values to a worker. Returns the unsubscribe. */
export function onTunablesApplied(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The live section objects by name (the same objects the area files export). */
export function tunableSections(): ReadonlyMap<string, Readonly<TunableSection>> {
  return new Map([...sections].map(([name, section]) => [name, section.values]));
}

/** Every registered knob with its current value, default and limits, in registration order. */
export function describeTunables(): TunableInfo[] {
  const out: TunableInfo[] = [];
  for (const [name, section] of sections) {
    for (const [key, value] of Object.entries(section.values)) {
      out.push({
        path: `${name}.${key}`,
        section: name,
        key,
        value,
        defaultValue: section.defaults[key]!,
        limit: section.limits[key] ?? {},
      });
    }
  }
  return out;
}
