import { StarIcon } from '../../ui/icons';
import * as s from './landing.css';
import { TESTIMONIALS } from './testimonials';

const initials = (name: string) =>
  name
    .replace(/^Dr\.\s*/, '')
    .split(/\s+/)
    .map((p) => p[0])
    .join('')
    .slice(0, 2);

export function Testimonials() {
  return (
    <section id="testimonials" className={`${s.section} ${s.sectionAlt}`} aria-labelledby="testimonials-title">
      <div className={s.container}>
        <div className={s.sectionHead}>
          <p className={s.kicker}>Testimonials</p>
          <h2 id="testimonials-title" className={s.h2}>
            Trusted by care teams
          </h2>
          <p className={s.sectionLead}>Clinics and care providers use Parley to answer every call and learn from each one.</p>
        </div>
        <ul className={s.grid3}>
          {TESTIMONIALS.map((t) => (
            <li key={t.id}>
              <figure className={s.card} style={{ height: '100%' }}>
                <div className={s.stars} role="img" aria-label={`Rated ${t.rating} out of 5`}>
                  {Array.from({ length: t.rating }, (_, i) => (
                    <StarIcon key={i} size={18} />
                  ))}
                </div>
                <blockquote className={s.quote}>
                  <p>“{t.quote}”</p>
                </blockquote>
                <figcaption className={s.person}>
                  <span className={s.initials} aria-hidden="true">
                    {initials(t.name)}
                  </span>
                  <span className={s.callMeta}>
                    <span className={s.callName}>{t.name}</span>
                    <span className={s.muted}>
                      {t.role}, {t.company}
                    </span>
                  </span>
                </figcaption>
              </figure>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
