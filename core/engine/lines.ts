/** Fixed lines the engine speaks itself. Short, and never reading back what was (mis)heard. */
export const LINES = {
  clarify: "Sorry, I didn't catch that. Could you say it again?",
  degenerate: 'Sorry, I lost my train of thought. Could you ask that again?',
} as const;
