/** One message of a chat with the language model: the one definition, from the engine to the model worker. */
import { z } from 'zod';

export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().max(200_000),
});

export type ChatMessage = z.infer<typeof ChatMessageSchema>;
