import { Button } from '../../ui/button/button';
import { ArrowRightIcon, CheckIcon, PhoneIcon, PlayIcon, SparklesIcon } from '../../ui/icons';
import * as s from './landing.css';

export interface HeroProps {
  onGetStarted: () => void;
  onWatchDemo: () => void;
  onIntent?: () => void;
}

const BARS = [30, 55, 80, 45, 95, 60, 35, 70, 90, 50, 25, 65, 85, 40, 75, 55, 30, 60, 90, 45, 70, 35, 80, 50];

export function Hero({ onGetStarted, onWatchDemo, onIntent }: HeroProps) {
  return (
    <section className={s.hero} aria-labelledby="hero-title">
      <div className={s.heroGrid}>
        <div className={s.heroCopy}>
          <span className={s.eyebrow}>
            <SparklesIcon size={14} />
            AI voice agents for health care teams
          </span>
          <h1 id="hero-title" className={s.heroTitle}>
            Turn voice data into <span className={s.gradientText}>actionable insights</span>
          </h1>
          <p className={s.heroLead}>
            Parley builds AI agents that answer and place your phone calls, transcribe every conversation and tell you what
            matters, so your team spends its time on patients, not on the phone.
          </p>
          <div className={s.heroActions}>
            <Button size="lg" onClick={onGetStarted} onPointerEnter={onIntent} onFocus={onIntent}>
              Get Started
              <ArrowRightIcon />
            </Button>
            <Button size="lg" variant="secondary" onClick={onWatchDemo}>
              <PlayIcon size={14} />
              Watch Demo
            </Button>
          </div>
          <ul className={s.heroNote}>
            {['No credit card required', 'Bring your own provider keys', 'Live in an afternoon'].map((t) => (
              <li key={t} className={s.heroNoteItem}>
                <CheckIcon className={s.tick} />
                {t}
              </li>
            ))}
          </ul>
        </div>
        <figure className={s.callCard} aria-label="Example: a live call handled by a Parley agent">
          <div className={s.callHeader}>
            <span className={s.avatar}>
              <PhoneIcon size={18} />
            </span>
            <span className={s.callMeta}>
              <span className={s.callName}>Receptionist agent</span>
              <span className={s.muted}>Inbound · +1 (415) 555-0134</span>
            </span>
            <span className={s.live}>
              <span className={s.liveDot} />
              Live 02:14
            </span>
          </div>
          <div className={s.wave} aria-hidden="true">
            {BARS.map((h, i) => (
              <span key={i} className={s.bar} style={{ height: `${h}%`, opacity: 0.45 + (h / 100) * 0.55 }} />
            ))}
          </div>
          <div className={s.bubbles}>
            <p className={s.bubble}>Hi, I'd like to move my mother's appointment to Thursday.</p>
            <p className={`${s.bubble} ${s.bubbleAgent}`}>
              Of course. Thursday at 10:30 AM is free with Dr. Lee. Shall I book it?
            </p>
          </div>
          <p className={s.insight}>
            <SparklesIcon />
            <span>
              <strong>Insight:</strong> appointment rescheduled · sentiment positive · no follow-up needed
            </span>
          </p>
        </figure>
      </div>
    </section>
  );
}
