/** The local date and time in words, so the LLM can answer "what day is it" and reason about "tomorrow". */
export function formatLocalDateTime(date: Date, locale = 'en-GB', timeZone?: string): string {
  const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const text = new Intl.DateTimeFormat(locale, {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
    timeZone: zone,
  }).format(date);
  return `${text.replace(/ at /, ', ')} (${zone})`;
}
