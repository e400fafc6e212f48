import { Link } from '@tanstack/react-router';
import { Button } from '../../ui/button/button';
import { LogoMark } from '../../ui/icons';
import * as s from './landing.css';

export interface TopBarProps {
  onContact: () => void;
  onLogin: () => void;
  /** hover/focus on a dialog trigger: start loading the dialog */
  onIntent?: () => void;
}

export function TopBar({ onContact, onLogin, onIntent }: TopBarProps) {
  return (
    <header className={s.topBar}>
      <div className={s.topBarInner}>
        <Link to="/" className={s.brand}>
          <LogoMark />
          <span>Parley</span>
        </Link>
        <nav aria-label="Sections" className={s.navLinks}>
          <a href="#features" className={s.navLink}>
            Features
          </a>
          <a href="#testimonials" className={s.navLink}>
            Testimonials
          </a>
          <a href="#pricing" className={s.navLink}>
            Pricing
          </a>
        </nav>
        <div className={s.topActions}>
          <Button variant="ghost" onClick={onContact} onPointerEnter={onIntent} onFocus={onIntent}>
            Contact
          </Button>
          <Button onClick={onLogin} onPointerEnter={onIntent} onFocus={onIntent}>
            Login / Sign up
          </Button>
        </div>
      </div>
    </header>
  );
}
