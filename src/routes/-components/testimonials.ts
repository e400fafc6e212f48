export interface Testimonial {
  id: number;
  name: string;
  role: string;
  company: string;
  quote: string;
  rating: 5;
}

/** The three fixed testimonials of the landing page. */
export const TESTIMONIALS: readonly Testimonial[] = [
  {
    id: 1,
    name: 'Dr. Sarah Mitchell',
    role: 'Medical Director',
    company: 'Riverside Senior Care',
    quote:
      'Our receptionist agent answers every call, day or night. Patients get their appointments booked and our nurses get a clean summary of each conversation.',
    rating: 5,
  },
  {
    id: 2,
    name: 'James Carter',
    role: 'Operations Manager',
    company: 'HealthFirst Clinics',
    quote: 'We used to spend hours listening to call recordings. Parley turns them into insights we can act on the same morning.',
    rating: 5,
  },
  {
    id: 3,
    name: 'Priya Raman',
    role: 'Head of Patient Experience',
    company: 'CarePoint Network',
    quote:
      'Setting up an agent took an afternoon. Batch reminder calls cut our no-show rate, and the call history shows exactly what happened on every call.',
    rating: 5,
  },
];
