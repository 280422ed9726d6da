/** Component harness for the browser check: mounts <Avatar> and exposes its handle and event log on window. */
import { render } from 'preact';
import { Avatar, type AvatarHandle } from '../../../components/avatar/Avatar';

interface Harness {
  handle?: AvatarHandle;
  log: Array<{ t: number; type: string; v?: unknown }>;
  levels: number[];
}
const w = window as unknown as { harness: Harness };
w.harness = { log: [], levels: [] };
const log = (type: string, v?: unknown): void => {
  w.harness.log.push({ t: performance.now(), type, v });
};

render(
  <Avatar
    source={{ url: './sidetalk-default.glb' }}
    view="upper"
    onReady={(h) => {
      w.harness.handle = h;
      log('ready');
    }}
    onStarted={() => log('started')}
    onLevel={(v) => w.harness.levels.push(v)}
    onEnded={(i) => log('ended', i)}
    onError={(m) => log('error', m)}
  />,
  document.getElementById('app')!,
);
