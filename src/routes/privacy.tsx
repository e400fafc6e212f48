import { createFileRoute } from '@tanstack/react-router';
import * as s from './-components/auth.css';
import { DocPage, DocSection } from './-components/DocPage';
import { noSearch } from './-lib/search';

export const Route = createFileRoute('/privacy')({
  validateSearch: noSearch,
  component: PrivacyPage,
});

function PrivacyPage() {
  return (
    <DocPage title="Privacy Policy" updated="2025">
      <DocSection title="What we store">
        <ul className={s.docList}>
          <li>
            Your account: name, email, an optional profile photo, and your password as an argon2id hash (never the password).
          </li>
          <li>Your company workspace: agents, phone numbers, batch calls, call history and billing records.</li>
          <li>Provider keys you connect, encrypted at rest (AES-256-GCM); the app only ever shows them masked.</li>
          <li>Messages you send through the contact form.</li>
          <li>
            Security records: sessions (so you can be signed out everywhere), and failed login and reset attempts, which limit
            abuse.
          </li>
        </ul>
      </DocSection>
      <DocSection title="What your browser stores">
        <p>
          No cookies and no trackers. Local storage holds your session tokens (under <code>auth-store</code>), your account and
          company ids, and interface preferences such as whether the sidebar is open. Logging out removes the tokens and ids.
        </p>
      </DocSection>
      <DocSection title="Who sees it">
        <p>
          Only your company's workspace sees its data. To place and analyse calls, Parley sends what a call needs (numbers,
          prompts, audio, transcripts) to the providers you connected, under their own privacy terms. We do not sell data and we
          do not use it for advertising.
        </p>
      </DocSection>
      <DocSection title="How long">
        <p>
          Data stays until you delete it or ask us to delete your account. Password-reset links expire after 30 minutes and work
          once; sessions end when you log out or change your password.
        </p>
      </DocSection>
      <DocSection title="Your rights">
        <p>
          You can ask for a copy of your data, its correction or its deletion by writing to us through the contact form on the
          home page.
        </p>
      </DocSection>
    </DocPage>
  );
}
