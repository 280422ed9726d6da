/** The welcome's steps as plain views (docs/onboarding.md); Onboarding.tsx decides which one shows and does the work. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { formatMegabytes, type DownloadPlan, type PlanProgress } from '../../core/ux/onboarding';
import { formatBytes, formatEta, formatSpeed, percent } from '../models/format';

/** A step's heading takes the focus when the step appears, so keyboard and screen-reader users land on it. */
function StepHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h2 ref={ref} tabIndex={-1} id="onboarding-heading" class="onboarding-heading">
      {children}
    </h2>
  );
}

interface WelcomeProps {
  plan: DownloadPlan;
  /** This computer's GPU is not known yet: the set (and its total) may still change, so nothing starts. */
  checking: boolean;
  onStart(): void;
  onSkip(): void;
}

export function WelcomeStep({ plan, checking, onStart, onSkip }: WelcomeProps) {
  const total = checking ? 'checking this computer…' : formatMegabytes(plan.totalBytes);
  return (
    <>
      <StepHeading>Welcome to Sidetalk</StepHeading>
      <p>
        Sidetalk is an assistant you talk to. It listens, answers out loud, and can tell you about the page you are on, the
        weather and Wikipedia. Speech recognition, the language model and the voice run on this computer.
      </p>
      <p>To talk, it downloads these models once and keeps them on this computer:</p>
      <ul class="onboarding-plan" data-testid="onboarding-plan">
        {plan.items.map((item) => (
          <li key={item.id} data-testid={`onboarding-item-${item.id}`} data-bytes={item.bytes}>
            <span>{item.label}</span>
            <span class="muted small">
              {item.license} · {formatBytes(item.bytes)}
            </span>
          </li>
        ))}
      </ul>
      <p data-testid="onboarding-total" data-bytes={checking ? undefined : plan.totalBytes}>
        Total: <strong>{total}</strong>
      </p>
      <div class="onboarding-actions">
        <button type="button" class="button primary" disabled={checking} onClick={onStart} data-testid="onboarding-start">
          {checking ? 'Checking this computer…' : `Download and set up (${total})`}
        </button>
        <button type="button" class="button" onClick={onSkip} data-testid="onboarding-skip">
          Not now
        </button>
      </div>
    </>
  );
}

const HEADINGS: Partial<Record<PlanProgress['status'], string>> = {
  downloading: 'Downloading the models',
  paused: 'Download paused',
  failed: 'The download stopped',
};

interface DownloadProps {
  plan: DownloadPlan;
  progress: PlanProgress;
  error: string | null;
  onPause(): void;
  onResume(): void;
}

export function DownloadStep({ plan, progress, error, onPause, onResume }: DownloadProps) {
  const pct = Math.round(percent(progress.bytes, progress.totalBytes));
  const downloading = progress.status === 'downloading';
  const rate = [formatSpeed(progress.speedBps), formatEta(progress.etaSeconds)].filter(Boolean).join(' · ');
  const said = progress.error ?? error;
  return (
    <>
      <StepHeading>{HEADINGS[progress.status] ?? 'Download the models'}</StepHeading>
      <div
        class="progress"
        role="progressbar"
        aria-label="Models download"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-valuetext={`${pct}%`}
        data-testid="onboarding-progress"
      >
        <div class="progress-fill" style={{ width: `${pct}%` }} />
      </div>
      <p class="small" data-testid="onboarding-bytes" aria-live="polite">
        {formatBytes(progress.bytes)} of {formatBytes(progress.totalBytes)} ({pct}%){rate ? ` · ${rate}` : ''}
      </p>
      <ul class="onboarding-plan">
        {plan.items.map((item) => (
          <li key={item.id}>
            <span>{item.label}</span>
            <span class="muted small">{progress.missingIds.includes(item.id) ? formatBytes(item.bytes) : 'Ready'}</span>
          </li>
        ))}
      </ul>
      {said && (
        <p class="notice" role="alert" data-testid="onboarding-error">
          {said}
        </p>
      )}
      <div class="onboarding-actions">
        {downloading ? (
          <button type="button" class="button" onClick={onPause} data-testid="onboarding-pause">
            Pause
          </button>
        ) : (
          <button type="button" class="button primary" onClick={onResume} data-testid="onboarding-resume">
            {progress.bytes > 0 ? 'Resume' : 'Download'}
          </button>
        )}
      </div>
    </>
  );
}

interface MicProps {
  blocked: boolean;
  onAllow(): void;
  onSkip(): void;
}

export function MicrophoneStep({ blocked, onAllow, onSkip }: MicProps) {
  return (
    <>
      <StepHeading>{blocked ? 'The microphone is blocked' : 'Let Sidetalk hear you'}</StepHeading>
      <p>
        {blocked
          ? "Chrome blocks the microphone for Sidetalk. Allow it in Chrome's site settings for this extension; the page that opens shows where."
          : 'Chrome asks once, on a page of its own (the side panel cannot show the question). Allow the microphone there, then come back.'}
      </p>
      <div class="onboarding-actions">
        <button type="button" class="button primary" onClick={onAllow} data-testid="onboarding-allow-mic">
          {blocked ? 'How to allow it' : 'Allow the microphone'}
        </button>
        <button type="button" class="button" onClick={onSkip} data-testid="onboarding-type-instead">
          Type instead
        </button>
      </div>
    </>
  );
}

interface GreetingProps {
  failed: string | null;
  onRetry(): void;
  onSkip(): void;
}

export function GreetingStep({ failed, onRetry, onSkip }: GreetingProps) {
  return (
    <>
      <StepHeading>{failed ? 'Sidetalk could not say hello' : 'Saying hello…'}</StepHeading>
      {failed ? (
        <>
          <p class="notice" role="alert" data-testid="onboarding-error">
            {failed}
          </p>
          <div class="onboarding-actions">
            <button type="button" class="button primary" onClick={onRetry} data-testid="onboarding-retry-greeting">
              Try again
            </button>
            <button type="button" class="button" onClick={onSkip} data-testid="onboarding-skip">
              Skip
            </button>
          </div>
        </>
      ) : (
        <p aria-live="polite">Loading the models and the voice. The first time takes a little while.</p>
      )}
    </>
  );
}

export function FinishedStep({ typing, onFinish }: { typing: boolean; onFinish(): void }) {
  return (
    <>
      <StepHeading>You’re all set</StepHeading>
      <p>
        {typing
          ? 'Type a question below. To talk instead, allow the microphone later from the status line.'
          : 'Click the orb to talk hands-free (Alt+Shift+L), hold it or hold Space to push to talk, or type below. Escape stops an answer.'}
      </p>
      <div class="onboarding-actions">
        <button type="button" class="button primary" onClick={onFinish} data-testid="onboarding-finish">
          Start talking
        </button>
      </div>
    </>
  );
}
