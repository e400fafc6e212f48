import {
  type SimpleIcon,
  siAnthropic,
  siCaldotcom,
  siCalendly,
  siDeepgram,
  siElevenlabs,
  siPerplexity,
  siWhatsapp,
} from 'simple-icons';
import type { ProviderName } from '../../../../api/contract/provider';
import * as s from './providers.css';

/**
 * Brand marks from the simple-icons package, imported one by one so only these seven ship in the bundle.
 * simple-icons has no mark for Cartesia, OpenAI, Twilio, Plivo or Smallest: those get a lettered mark.
 */
const BRAND_ICONS: Partial<Record<ProviderName, SimpleIcon>> = {
  deepgram: siDeepgram,
  elevenlabs: siElevenlabs,
  anthropic: siAnthropic,
  calcom: siCaldotcom,
  calendly: siCalendly,
  perplexity: siPerplexity,
  whatsapp: siWhatsapp,
};

/** What each provider does, shown under its name on the card. */
export const PROVIDER_BLURBS: Record<ProviderName, string> = {
  deepgram: 'Speech recognition for live calls.',
  elevenlabs: 'Natural voices for your agents.',
  cartesia: 'Low-latency voice synthesis.',
  openai: 'Language models behind the conversation.',
  anthropic: 'Claude models behind the conversation.',
  calcom: 'Book appointments during a call.',
  calendly: 'Book appointments during a call.',
  twilio: 'Phone numbers and calls.',
  plivo: 'Phone numbers and calls.',
  perplexity: 'Answers from the web during a call.',
  smallest: 'Fast text-to-speech voices.',
  whatsapp: 'Follow up with patients on WhatsApp.',
};

/** The provider's logo (decorative: the card's heading names the provider). */
export function ProviderLogo({ name, label }: { name: ProviderName; label: string }) {
  const icon = BRAND_ICONS[name];
  if (!icon) {
    return (
      <span className={s.lettered} aria-hidden="true" data-mark="lettered">
        {label.charAt(0).toUpperCase()}
      </span>
    );
  }
  return (
    <span className={s.logo} aria-hidden="true" data-mark="brand">
      <svg width={24} height={24} viewBox="0 0 24 24" aria-hidden="true" focusable="false" style={{ color: `#${icon.hex}` }}>
        <path d={icon.path} fill="currentColor" />
      </svg>
    </span>
  );
}
