import { createFileRoute } from '@tanstack/react-router';
import * as s from './-components/auth.css';
import { DocPage, DocSection } from './-components/DocPage';
import { noSearch } from './-lib/search';

export const Route = createFileRoute('/terms')({
  validateSearch: noSearch,
  component: TermsPage,
});

function TermsPage() {
  return (
    <DocPage title="Terms of Service" updated="2025">
      <DocSection title="What Parley is">
        <p>
          Parley is software for building AI voice agents, giving them phone numbers, running batch calls and reading call
          history. It is run by the organisation that deployed this instance ("we" below); these terms are the plain rules for
          using it.
        </p>
      </DocSection>
      <DocSection title="Your account">
        <ul className={s.docList}>
          <li>Give a real name and an email address you can read: password resets are sent there.</li>
          <li>Keep your password to yourself. You are responsible for what is done with your account.</li>
          <li>One account belongs to one company workspace; everything you create stays inside it.</li>
        </ul>
      </DocSection>
      <DocSection title="Acceptable use">
        <ul className={s.docList}>
          <li>
            Only call people who agreed to be called, and follow the laws on calls, recordings and consent where you and they are
            (for example telemarketing and health-privacy rules).
          </li>
          <li>Tell callers they are speaking with an automated agent when the law or common decency asks for it.</li>
          <li>Do not use Parley to harass, defraud, impersonate or spam anyone, or to attack the service.</li>
        </ul>
      </DocSection>
      <DocSection title="Provider keys and costs">
        <p>
          Calls, voices and language models run on third-party providers with keys you connect. Their terms and prices apply, and
          what you spend with them is between you and them. Costs shown in Parley are estimates.
        </p>
      </DocSection>
      <DocSection title="No warranty">
        <p>
          Parley is provided as is. AI agents make mistakes: check what your agents say before you rely on them, especially for
          anything medical. We are not liable for indirect losses arising from its use, as far as the law allows.
        </p>
      </DocSection>
      <DocSection title="Ending">
        <p>
          You can stop using Parley at any time and ask us to delete your account. We may suspend accounts that break these terms.
          We will announce changes to these terms here before they apply.
        </p>
      </DocSection>
    </DocPage>
  );
}
