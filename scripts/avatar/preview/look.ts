/** Bare TalkingHead page for judging the generated avatar: ?view=head&morph=viseme_aa:1,eyeBlinkLeft:1&mood=happy */
import { TalkingHead } from '@met4citizen/talkinghead/modules/talkinghead.mjs';

const q = new URLSearchParams(location.search);
const node = document.getElementById('app')!;
const head = new TalkingHead(node, {
  lipsyncModules: [],
  lipsyncLang: 'en',
  cameraView: (q.get('view') ?? 'upper') as 'upper',
  cameraRotateEnable: false,
  dracoEnabled: false,
  avatarIdleEyeContact: 1,
});
(window as unknown as { head: TalkingHead }).head = head;
head.showAvatar({ url: q.get('glb') ?? './sidetalk-default.glb', body: 'F' }).then(
  () => {
    const mood = q.get('mood');
    if (mood) head.setMood(mood);
    for (const kv of (q.get('morph') ?? '').split(',').filter(Boolean)) {
      const [k, v] = kv.split(':');
      head.setFixedValue(k!, Number(v));
    }
    (window as unknown as { ready: boolean }).ready = true;
  },
  (e: unknown) => {
    document.body.textContent = `ERROR ${String(e)}`;
    (window as unknown as { ready: boolean }).ready = true;
  },
);
