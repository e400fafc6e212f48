import { Link } from '@tanstack/react-router';
import { Button } from '../../ui/button/button';
import { ArrowRightIcon, LogoMark } from '../../ui/icons';
import * as s from './landing.css';

export function CallToAction({ onGetStarted, onIntent }: { onGetStarted: () => void; onIntent?: () => void }) {
  return (
    <section className={s.section} aria-labelledby="cta-title">
      <div className={s.container}>
        <div className={s.cta}>
          <h2 id="cta-title" className={s.h2}>
            Your next call could answer itself
          </h2>
          <p className={s.ctaLead}>Create your first voice agent in minutes and see what your calls have been telling you.</p>
          <Button size="lg" className={s.ctaButton} onClick={onGetStarted} onPointerEnter={onIntent} onFocus={onIntent}>
            Create a free account
            <ArrowRightIcon />
          </Button>
        </div>
      </div>
    </section>
  );
}

export function Footer() {
  return (
    <footer className={s.footer}>
      <div className={s.footerInner}>
        <span className={s.brand}>
          <LogoMark size={22} />
          Parley
        </span>
        <nav aria-label="Legal" className={s.footerLinks}>
          <Link to="/terms" className={s.footerLink}>
            Terms of Service
          </Link>
          <Link to="/privacy" className={s.footerLink}>
            Privacy Policy
          </Link>
        </nav>
        <p>© {new Date().getFullYear()} Parley. All rights reserved.</p>
      </div>
    </footer>
  );
}
