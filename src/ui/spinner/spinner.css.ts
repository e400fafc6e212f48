import { style } from '@vanilla-extract/css';
import { recipe } from '@vanilla-extract/recipes';
import { spin } from '../shared.css';

export const root = style({ display: 'inline-flex', alignItems: 'center', justifyContent: 'center', lineHeight: 0 });

export const svg = recipe({
  base: { animation: `${spin} 0.7s linear infinite`, color: 'currentColor' },
  variants: {
    size: {
      sm: { width: '1rem', height: '1rem' },
      md: { width: '1.5rem', height: '1.5rem' },
      lg: { width: '2.5rem', height: '2.5rem' },
    },
  },
  defaultVariants: { size: 'md' },
});
