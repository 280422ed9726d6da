// The system prompt that turns a character into a voice. Everything the model writes is read aloud, so the prompt
// asks for what sounds right when spoken: one or two sentences by default, no visual formatting. The style text is
// the user's own (or an imported character's) description and is quoted as a description, not as extra rules.
// TTS text goes through `speechTextFor`, which applies the sanitiser and the pronunciation table; the transcript
// shows the model's text unchanged.
import type { Character } from './character';
import { INTERRUPTED_MARKER } from '../engine/interrupted-reply';
import { compilePronunciations } from './pronunciations';
import { SpeakableFilter, toSpeakable } from './speakable';

export interface PersonaPromptOptions {
  /** Tool use is described by the chat template / `tools` field; this only says when to reach for one. */
  toolsAvailable?: boolean;
  /** e.g. "Monday 3 March 2025, Europe/Oslo": small models otherwise guess the date. */
  nowDescription?: string;
}

export function buildPersonaPrompt(character: Character, opts: PersonaPromptOptions = {}): string {
  const { persona } = character;
  const lines = [
    `You are ${persona.name}, a voice assistant that talks with the user from a side panel in their web browser.`,
    persona.style ? `Your manner, in the user's words: "${oneLine(persona.style)}".` : '',
    'Everything you write is spoken aloud by a text-to-speech voice, so write exactly what should be said.',
    'Answer in one or two short spoken sentences unless the user asks for more detail or a longer explanation.',
    'Never use lists, bullet points, headings, tables, markdown, code blocks, links, web addresses or emoji.',
    'Say numbers, units and symbols the way a person would say them out loud.',
    "If you don't know something, say so briefly instead of guessing.",
    `A reply of yours that ends in ${INTERRUPTED_MARKER} was cut off by the user: they heard only the words before the marker. If they ask you to go on, continue from there without repeating what they heard. Never write the marker yourself.`,
    opts.toolsAvailable
      ? 'Use a tool when the question needs live facts, exact arithmetic or the time; otherwise just answer.'
      : '',
    opts.nowDescription ? `It is now ${oneLine(opts.nowDescription)}.` : '',
  ];
  return lines.filter(Boolean).join('\n');
}

/** Text for TTS from a whole reply (greeting, a tool's speech line): sanitised, then pronunciations applied. */
export function speechTextFor(character: Character, text: string): string {
  return compilePronunciations(character.pronunciations)(toSpeakable(text));
}

/** Streaming version: one per reply; feed chunker chunks, get TTS text (may be '' for a chunk that was all markup). */
export function createSpeechTransform(character: Character): { push(chunk: string): string; end(): string } {
  const pronounce = compilePronunciations(character.pronunciations);
  const filter = new SpeakableFilter();
  return {
    push: (chunk) => pronounce(filter.push(chunk)),
    end: () => pronounce(filter.end()),
  };
}

/** The greeting as shown (caption) and as spoken (TTS); null when the character has none. */
export function greetingFor(character: Character): { caption: string; speech: string } | null {
  const caption = character.persona.greeting.trim();
  if (!caption) return null;
  return { caption, speech: speechTextFor(character, caption) };
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').replace(/"/g, "'").trim();
}
