import * as Ariakit from '@ariakit/react';
import type { ReactNode } from 'react';
import { cx } from '../cx';
import * as s from './tabs.css';

export interface TabsProps {
  /** Controlled: typically a validated search param, so the URL holds the tab. */
  selectedId: string;
  onChange: (id: string) => void;
  children: ReactNode;
  className?: string;
}

/**
 * Tabs container. Compose: <Tabs><TabList aria-label="..."><Tab id="a">A</Tab></TabList><TabPanel tabId="a"/></Tabs>.
 * Tab ids are DOM ids: keep them unique on the page.
 */
export function Tabs({ selectedId, onChange, children, className }: TabsProps) {
  return (
    <Ariakit.TabProvider selectedId={selectedId} setSelectedId={(id) => id && id !== selectedId && onChange(id)}>
      <div className={className}>{children}</div>
    </Ariakit.TabProvider>
  );
}

export function TabList({ className, ...rest }: Ariakit.TabListProps) {
  return <Ariakit.TabList {...rest} className={cx(s.list, className)} />;
}

export function Tab({ className, ...rest }: Ariakit.TabProps) {
  return <Ariakit.Tab {...rest} className={cx(s.tab, className)} />;
}

/** Panel of tab `tabId`. Hidden panels unmount (`unmountOnHide`) so they do not fetch. */
export function TabPanel({ className, ...rest }: Ariakit.TabPanelProps) {
  return <Ariakit.TabPanel unmountOnHide {...rest} className={cx(s.panel, className)} />;
}
