import { registerTunables } from './registry';

// listening: how long the microphone may stay open without the user's continued say-so (docs/security.md,
// "Microphone and camera"). Times in ms.
export const listeningTunables = registerTunables(
  'listening',
  {
    /** Push-to-talk held this long is released as if let go: a stuck key or a lost key-up cannot leave the mic open. */
    pttMaxHoldMs: 60_000,
  },
  {
    pttMaxHoldMs: { min: 1_000, max: 600_000, integer: true },
  },
);
