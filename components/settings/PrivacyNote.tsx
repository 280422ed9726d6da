/**
 * Settings → Models: what leaves this computer, what Sidetalk keeps and how to erase it, in the user's words. The
 * same facts, with where each item lives, are in docs/security.md ("What is stored", "What leaves the machine").
 */
export function PrivacyNote() {
  return (
    <section class="privacy" aria-labelledby="privacy-heading" data-testid="privacy-note">
      <h2 id="privacy-heading">Privacy</h2>
      <p class="muted small">
        The microphone and the camera start only when you switch them on here or in the popup, and are off again after a browser
        restart. What you say is heard and answered on this computer.
      </p>
      <p class="muted small">What goes online, only when you use it:</p>
      <ul class="muted small">
        <li>Model downloads: requests for the model files to Hugging Face (or your mirror). Nothing of yours is sent.</li>
        <li>Weather, or the time in a city: the place name goes to Open-Meteo.</li>
        <li>Wikipedia: the topic you ask about goes to Wikipedia.</li>
        <li>
          Your own model server, if you set one up: what you say, the conversation, remembered facts, tool results and the page
          text you ask about.
        </li>
      </ul>
      <p class="muted small">
        Kept in this browser profile: settings, downloaded models (Delete above), remembered facts (Forget, or switch memory off),
        characters, cloned voices, your avatar and your model server (each has Delete or Stop in its tab). Removing the extension
        erases everything.
      </p>
    </section>
  );
}
