import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { LogoMark } from '../../ui/icons';
import * as s from './auth.css';

/** Layout of the short text pages (terms, privacy). */
export function DocPage({ title, updated, children }: { title: string; updated: string; children: ReactNode }) {
  return (
    <main className={s.doc}>
      <Link to="/" className={s.brand}>
        <LogoMark />
        Parley
      </Link>
      <h1 className={s.docTitle}>{title}</h1>
      <p className={s.muted}>Last updated {updated}</p>
      {children}
      <p className={s.footerLinks}>
        <Link to="/" className={s.link}>
          Back to Parley
        </Link>
      </p>
    </main>
  );
}

export function DocSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className={s.docSection}>
      <h2 className={s.docHeading}>{title}</h2>
      {children}
    </section>
  );
}
