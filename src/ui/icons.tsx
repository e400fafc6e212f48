import type { SVGProps } from 'react';

/**
 * Tiny inline icons (24x24 grid, stroke-based, lucide-like) so no icon library ships to the client.
 * Decorative by default: `aria-hidden`. Give the surrounding control its accessible name.
 */
type IconProps = SVGProps<SVGSVGElement> & { size?: number | string };

/** Stroke icon drawn from one path. */
export function Icon({ d, size = 16, ...rest }: IconProps & { d: string }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...rest}
    >
      <path d={d} />
    </svg>
  );
}

export const XIcon = (p: IconProps) => <Icon d="M18 6 6 18M6 6l12 12" {...p} />;
export const CheckIcon = (p: IconProps) => <Icon d="M20 6 9 17l-5-5" {...p} />;
export const ChevronDownIcon = (p: IconProps) => <Icon d="m6 9 6 6 6-6" {...p} />;
export const ChevronUpIcon = (p: IconProps) => <Icon d="m18 15-6-6-6 6" {...p} />;
export const ChevronLeftIcon = (p: IconProps) => <Icon d="m15 18-6-6 6-6" {...p} />;
export const ChevronRightIcon = (p: IconProps) => <Icon d="m9 18 6-6-6-6" {...p} />;
export const ArrowLeftIcon = (p: IconProps) => <Icon d="M19 12H5m7 7-7-7 7-7" {...p} />;
export const ArrowRightIcon = (p: IconProps) => <Icon d="M5 12h14m-7-7 7 7-7 7" {...p} />;
export const PlusIcon = (p: IconProps) => <Icon d="M12 5v14M5 12h14" {...p} />;
export const SearchIcon = (p: IconProps) => <Icon d="M21 21l-4.3-4.3M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14z" {...p} />;
export const MoreIcon = (p: IconProps) => <Icon d="M5 12h.01M12 12h.01M19 12h.01" {...p} />;
export const PanelLeftIcon = (p: IconProps) => (
  <Icon d="M5 3h14a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zM9 3v18" {...p} />
);
export const BotIcon = (p: IconProps) => (
  <Icon
    d="M12 8V4H8M6 8h12a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2zM2 14h2m16 0h2M15 13v2M9 13v2"
    {...p}
  />
);
export const PhoneIcon = (p: IconProps) => (
  <Icon
    d="M22 16.9v3a2 2 0 0 1-2.2 2 19.8 19.8 0 0 1-8.6-3.1 19.5 19.5 0 0 1-6-6A19.8 19.8 0 0 1 2.1 4.2 2 2 0 0 1 4.1 2h3a2 2 0 0 1 2 1.7c.1 1 .4 1.9.7 2.8a2 2 0 0 1-.5 2.1L8.1 9.9a16 16 0 0 0 6 6l1.3-1.3a2 2 0 0 1 2.1-.4c.9.3 1.8.6 2.8.7a2 2 0 0 1 1.7 2z"
    {...p}
  />
);
export const LayersIcon = (p: IconProps) => <Icon d="m12 2 10 5-10 5L2 7zM2 17l10 5 10-5M2 12l10 5 10-5" {...p} />;
export const HistoryIcon = (p: IconProps) => <Icon d="M3 12a9 9 0 1 0 3-6.7L3 8M3 3v5h5M12 7v5l4 2" {...p} />;
export const PlugIcon = (p: IconProps) => <Icon d="M12 22v-5M9 8V2m6 6V2M18 8v5a6 6 0 0 1-12 0V8z" {...p} />;
export const CreditCardIcon = (p: IconProps) => (
  <Icon d="M4 5h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2zM2 10h20" {...p} />
);
export const LogOutIcon = (p: IconProps) => <Icon d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4m7 14 5-5-5-5m5 5H9" {...p} />;
export const MicIcon = (p: IconProps) => (
  <Icon d="M12 2a3 3 0 0 0-3 3v7a3 3 0 0 0 6 0V5a3 3 0 0 0-3-3zM19 10v2a7 7 0 0 1-14 0v-2M12 19v3" {...p} />
);
export const SparklesIcon = (p: IconProps) => (
  <Icon d="M12 3l1.9 5.8L20 10.5l-6.1 1.8L12 18l-1.9-5.7L4 10.5l6.1-1.7zM5 3v4M3 5h4M19 17v4M17 19h4" {...p} />
);
export const ZapIcon = (p: IconProps) => <Icon d="M13 2 3 14h9l-1 8 10-12h-9z" {...p} />;
export const ClockIcon = (p: IconProps) => <Icon d="M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM12 6v6l4 2" {...p} />;
export const PlayIcon = (p: IconProps) => <Icon d="m6 3 14 9-14 9z" {...p} />;
export const MailIcon = (p: IconProps) => (
  <Icon d="M4 4h16a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2zm18 2-10 7L2 6" {...p} />
);
export const AlertIcon = (p: IconProps) => (
  <Icon d="M12 9v4m0 4h.01M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z" {...p} />
);
export const InfoIcon = (p: IconProps) => <Icon d="M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM12 16v-4m0-4h.01" {...p} />;

/** Filled star for ratings. */
export function StarIcon({ size = 16, ...rest }: IconProps) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="currentColor" aria-hidden="true" focusable="false" {...rest}>
      <path d="m12 2 3.1 6.3 6.9 1-5 4.9 1.2 6.8L12 17.8 5.8 21l1.2-6.8-5-4.9 6.9-1z" />
    </svg>
  );
}

/** The Parley mark: a speech bubble "P" on the brand colour. */
export function LogoMark({ size = 28, ...rest }: IconProps) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false" {...rest}>
      <rect width="32" height="32" rx="8" fill="#4f46e5" />
      <path d="M9 22V10h7a4.5 4.5 0 0 1 0 9h-3.5v3z" fill="#fff" />
    </svg>
  );
}
