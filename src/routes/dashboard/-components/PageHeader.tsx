import type { ComponentType, ReactNode } from 'react';
import { panel } from '../../../ui/panel/panel.css';
import * as s from './shell.css';

export interface PageHeaderProps {
  /** The page's h1 (e2e tests find pages by this heading). */
  title: ReactNode;
  description?: ReactNode;
  /** Buttons on the right. */
  actions?: ReactNode;
}

/** Heading row of a dashboard page. */
export function PageHeader({ title, description, actions }: PageHeaderProps) {
  return (
    <div className={s.pageHeader}>
      <div>
        <h1 className={s.pageTitle}>{title}</h1>
        {description ? <p className={s.pageLead}>{description}</p> : null}
      </div>
      {actions ? <div className={s.pageActions}>{actions}</div> : null}
    </div>
  );
}

export interface EmptyStateProps {
  icon: ComponentType<{ size?: number }>;
  title: ReactNode;
  text?: ReactNode;
  action?: ReactNode;
}

/** A centred empty state inside a panel. */
export function EmptyState({ icon: Icon, title, text, action }: EmptyStateProps) {
  return (
    <div className={`${panel} ${s.empty}`}>
      <span className={s.emptyIcon}>
        <Icon size={22} />
      </span>
      <h2 className={s.emptyTitle}>{title}</h2>
      {text ? <p className={s.emptyText}>{text}</p> : null}
      {action}
    </div>
  );
}

export { s as shellStyles };
