import { Link } from '@tanstack/react-router';
import { asSentence } from '../../-components/format';
import * as s from './editor.css';

/**
 * A test's or call's problem, e.g. 'Connect OpenAI on the Providers page to use GPT 4o', ended as a sentence,
 * with 'Open Providers' on its own line as an underlined link when the server gave one (the `link` of
 * src/api/contract/provider-keys.ts), so the link does not read as the end of the message.
 */
export function ProviderProblem({ message, link }: { message: string; link: string | null }) {
  return (
    <p className={s.error} role="alert">
      {asSentence(message)}
      {link ? (
        <>
          {' '}
          <Link to={link} className={s.problemLink}>
            Open Providers
          </Link>
        </>
      ) : null}
    </p>
  );
}
