import type { ComponentType } from 'react';
import { BotIcon, CreditCardIcon, HistoryIcon, LayersIcon, PhoneIcon, PlugIcon } from '../../../ui/icons';

export interface NavEntry {
  label: string;
  to:
    | '/dashboard'
    | '/dashboard/phone-numbers'
    | '/dashboard/batch-call'
    | '/dashboard/call-history'
    | '/dashboard/providers'
    | '/dashboard/billing';
  icon: ComponentType<{ size?: number }>;
  /** Match the path exactly (Agents is the index route, a prefix of every other entry). */
  exact?: boolean;
}

/** The sidebar entries of the specification, in order. */
export const NAV: readonly NavEntry[] = [
  { label: 'Agents', to: '/dashboard', icon: BotIcon, exact: true },
  { label: 'Phone Numbers', to: '/dashboard/phone-numbers', icon: PhoneIcon },
  { label: 'Batch Call', to: '/dashboard/batch-call', icon: LayersIcon },
  { label: 'Call History', to: '/dashboard/call-history', icon: HistoryIcon },
  { label: 'Providers', to: '/dashboard/providers', icon: PlugIcon },
  { label: 'Billing', to: '/dashboard/billing', icon: CreditCardIcon },
];
