import type { ComponentType } from 'react';
import { ClockIcon, MicIcon, SparklesIcon, ZapIcon } from '../../ui/icons';
import * as s from './landing.css';

interface Feature {
  title: string;
  text: string;
  Icon: ComponentType<{ size?: number }>;
}

const FEATURES: readonly Feature[] = [
  {
    title: 'Advanced voice processing',
    text: 'Accurate transcription of every call, across accents, languages and noisy lines, with speaker turns kept apart.',
    Icon: MicIcon,
  },
  {
    title: 'AI-powered analysis',
    text: 'Each conversation is summarised and scored: intent, sentiment, outcome and the follow-ups your team needs.',
    Icon: SparklesIcon,
  },
  {
    title: 'Real-time processing',
    text: 'Agents listen and answer in real time, with sub-second latency, natural interruptions and live transfers.',
    Icon: ZapIcon,
  },
  {
    title: 'Time efficiency',
    text: 'Hand routine calls, reminders and batch outreach to agents, and free hours of staff time every day.',
    Icon: ClockIcon,
  },
];

export function Features() {
  return (
    <section id="features" className={s.section} aria-labelledby="features-title">
      <div className={s.container}>
        <div className={s.sectionHead}>
          <p className={s.kicker}>Features</p>
          <h2 id="features-title" className={s.h2}>
            Everything you need to run voice at scale
          </h2>
          <p className={s.sectionLead}>
            From the first ring to the final insight, Parley handles the conversation and the analysis.
          </p>
        </div>
        <ul className={s.grid4}>
          {FEATURES.map(({ title, text, Icon }) => (
            <li key={title} className={s.card}>
              <span className={s.featureIcon}>
                <Icon size={22} />
              </span>
              <h3 className={s.h3}>{title}</h3>
              <p className={s.body}>{text}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
