/**
 * The first-run welcome (docs/onboarding.md): what Sidetalk does and downloads, one button that downloads the default
 * set (the same weights requests and progress events as Settings → Models), the microphone, and a spoken greeting.
 * The step follows from facts (core/ux/onboarding.ts), so a download finished elsewhere or a grant given in another
 * tab moves it on by itself.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { EngineState } from '../../core/engine/types';
import type { PermissionStateName } from '../../core/protocol';
import type { DeviceFacts, ModelBundle } from '../../core/weights';
import { downloadPlan, onboardingStep, planProgress, type GreetingState, type OnboardingStep } from '../../core/ux/onboarding';
import { useWeights } from '../models/use-weights';
import { openPermissionsPage, request } from '../ui/runtime';
import { DownloadStep, FinishedStep, GreetingStep, MicrophoneStep, WelcomeStep } from './OnboardingSteps';
import './onboarding.css';

interface Props {
  catalog: ModelBundle[];
  /** This computer's GPU and compute setting (the default set depends on them); null while still asked. */
  device: DeviceFacts | null;
  mic: PermissionStateName;
  /** The engine's state: the greeting counts as spoken once the engine says it is speaking it. */
  engine: EngineState;
  /** The greeting was heard, or the user skipped: the welcome is done for good (the settings flag). */
  onDone(): void;
  /** The user left the welcome's last screen. */
  onClose(): void;
}

const STEPS: { id: OnboardingStep; label: string }[] = [
  { id: 'welcome', label: 'Welcome' },
  { id: 'download', label: 'Download' },
  { id: 'microphone', label: 'Microphone' },
  { id: 'greeting', label: 'Hello' },
];

/** Until the device is known the plan is the CPU set, and the welcome's button waits (WelcomeStep `checking`). */
const CPU_ONLY: DeviceFacts = { gpu: null, computeBackend: 'wasm' };

export function Onboarding({ catalog, device, mic, engine, onDone, onClose }: Props) {
  const plan = useMemo(() => downloadPlan(catalog, device ?? CPU_ONLY), [catalog, device]);
  const [snapshot, live] = useWeights();
  const progress = planProgress(plan, snapshot, live);
  const [begun, setBegun] = useState(false);
  const [micSkipped, setMicSkipped] = useState(false);
  const [greeting, setGreeting] = useState<GreetingState>('waiting');
  const [error, setError] = useState<string | null>(null);
  const [greetError, setGreetError] = useState<string | null>(null);
  // A download of the set already under way (the panel was closed and opened again) means the user began.
  const underway = progress.status === 'downloading' || progress.status === 'paused' || progress.status === 'failed';
  const step = onboardingStep({
    begun: begun || underway,
    models: progress.status,
    mic,
    micSkipped,
    greeting,
  });

  const download = () => {
    setError(null);
    if (progress.missingIds.length === 0) return;
    request('weights/download', { bundleIds: progress.missingIds }).catch((e: Error) => setError(e.message));
  };
  const start = () => {
    setBegun(true);
    download();
  };
  const skip = () => {
    onDone();
    onClose();
  };

  // The greeting: asked for once when its step comes; "spoken" when the engine says it speaks it (the player
  // started), "failed" when the engine went back to rest without a word.
  const greetingTurn = useRef<'none' | 'asked' | 'underway'>('none');
  useEffect(() => {
    if (step !== 'greeting' || greeting !== 'waiting') return;
    setGreeting('loading');
    setGreetError(null);
    greetingTurn.current = 'asked';
    request('conversation/greet', {}, 180_000).catch((e: Error) => {
      greetingTurn.current = 'none';
      setGreetError(e.message);
      setGreeting('failed');
    });
  }, [step, greeting]);
  useEffect(() => {
    if (greeting !== 'loading' && greeting !== 'speaking') return;
    if (engine === 'speaking') {
      greetingTurn.current = 'none';
      setGreeting('spoken');
      onDone();
    } else if (engine === 'thinking') {
      greetingTurn.current = 'underway';
      setGreeting('speaking');
    } else if (greetingTurn.current === 'underway') {
      greetingTurn.current = 'none';
      setGreetError('Sidetalk could not say hello.');
      setGreeting('failed');
    }
  }, [engine, greeting]);

  const index = STEPS.findIndex((s) => s.id === step);
  return (
    <section class="onboarding" aria-labelledby="onboarding-heading" data-testid="onboarding" data-step={step}>
      {step !== 'finished' && (
        <ol class="onboarding-steps" aria-label="Setup steps">
          {STEPS.map((s, i) => (
            <li
              key={s.id}
              class={i < index ? 'done' : i === index ? 'current' : ''}
              aria-current={i === index ? 'step' : undefined}
            >
              {s.label}
            </li>
          ))}
        </ol>
      )}
      {step === 'welcome' && <WelcomeStep plan={plan} checking={device === null} onStart={start} onSkip={skip} />}
      {step === 'download' && (
        <DownloadStep
          plan={plan}
          progress={progress}
          error={error}
          onPause={() => void request('weights/cancel', {}).catch((e: Error) => setError(e.message))}
          onResume={download}
        />
      )}
      {step === 'microphone' && (
        <MicrophoneStep blocked={mic === 'denied'} onAllow={openPermissionsPage} onSkip={() => setMicSkipped(true)} />
      )}
      {step === 'greeting' && (
        <GreetingStep
          failed={greeting === 'failed' ? (greetError ?? 'Sidetalk could not say hello.') : null}
          onRetry={() => setGreeting('waiting')}
          onSkip={skip}
        />
      )}
      {step === 'finished' && <FinishedStep typing={mic !== 'granted'} onFinish={onClose} />}
    </section>
  );
}
