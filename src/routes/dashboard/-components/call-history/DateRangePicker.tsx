import {
  addDays,
  addMonths,
  endOfMonth,
  endOfWeek,
  format,
  isAfter,
  isBefore,
  isSameDay,
  isSameMonth,
  isToday,
  parseISO,
  startOfMonth,
  startOfWeek,
} from 'date-fns';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { Button } from '../../../../ui/button/button';
import { DATE_PARAM_FORMAT } from '../../../../ui/constants';
import { ChevronLeftIcon, ChevronRightIcon, ClockIcon } from '../../../../ui/icons';
import { Popover } from '../../../../ui/popover/popover';
import * as s from './call-history.css';

/** Inclusive days as yyyy-MM-dd (the specification: the date range is sent as yyyy-MM-dd). */
export interface DayRange {
  from?: string | undefined;
  to?: string | undefined;
}

export interface DateRangePickerProps {
  value: DayRange;
  /** a complete range, or undefined when cleared */
  onChange: (range: { from: string; to: string } | undefined) => void;
  /** today (tests pass a fixed day) */
  today?: Date;
}

const toParam = (d: Date) => format(d, DATE_PARAM_FORMAT);
const fromParam = (s: string | undefined) => (s ? parseISO(s) : undefined);
const dayLabel = (d: Date) => format(d, 'EEEE, MMMM d, yyyy');
/** 'Nov 01, 2026 - Nov 30, 2026' on the trigger */
const short = (d: Date) => format(d, 'LLL dd, y');

/** The days shown for a month: whole weeks, Sunday first (days of other months are placeholders). */
function weeksOf(month: Date): Date[][] {
  const weeks: Date[][] = [];
  let day = startOfWeek(startOfMonth(month));
  const last = endOfWeek(endOfMonth(month));
  while (!isAfter(day, last)) {
    const week: Date[] = [];
    for (let i = 0; i < 7; i++) {
      week.push(day);
      day = addDays(day, 1);
    }
    weeks.push(week);
  }
  return weeks;
}

/** The day a key moves to (APG date picker keys). */
const KEY_MOVES: Record<string, (day: Date) => Date> = {
  ArrowLeft: (d) => addDays(d, -1),
  ArrowRight: (d) => addDays(d, 1),
  ArrowUp: (d) => addDays(d, -7),
  ArrowDown: (d) => addDays(d, 7),
  Home: (d) => startOfWeek(d),
  End: (d) => endOfWeek(d),
  PageUp: (d) => addMonths(d, -1),
  PageDown: (d) => addMonths(d, 1),
};

const WEEKDAYS = Array.from({ length: 7 }, (_, i) => addDays(startOfWeek(new Date(2026, 0, 4)), i));

/**
 * The Call History date range: a button reading 'Pick a date' until a range is chosen,
 * opening a popover with two months. The first day clicked starts the range, the second ends it (either
 * order) and applies it. Each month is a grid (role=grid) with named weekday headers; one day at a time
 * is in the Tab order and the keys move it: arrows (day, week), Home/End (week), PageUp/PageDown (month),
 * Enter/Space to choose.
 */
export function DateRangePicker({ value, onChange, today = new Date() }: DateRangePickerProps) {
  const from = fromParam(value.from);
  const to = fromParam(value.to);
  const [open, setOpen] = useState(false);
  /** the left month shown */
  const [month, setMonth] = useState(() => startOfMonth(from ?? addMonths(today, -1)));
  /** the first day of a range being chosen */
  const [anchor, setAnchor] = useState<Date | undefined>();
  const [focused, setFocused] = useState<Date>(() => from ?? today);
  const [hovered, setHovered] = useState<Date | undefined>();
  const gridRef = useRef<HTMLDivElement>(null);
  /** the day in the Tab order: focused when the picker opens */
  const tabDayRef = useRef<HTMLButtonElement>(null);
  const moveFocus = useRef(false);

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (next) {
      setAnchor(undefined);
      setMonth(startOfMonth(from ?? addMonths(today, -1)));
      setFocused(from ?? today);
    }
  };

  // keyboard moves focus to the new day once it is rendered
  useEffect(() => {
    if (!moveFocus.current) return;
    moveFocus.current = false;
    gridRef.current?.querySelector<HTMLButtonElement>(`[data-day="${toParam(focused)}"]`)?.focus();
  }, [focused]);

  const choose = (day: Date) => {
    if (!anchor) {
      setAnchor(day);
      return;
    }
    const [first, last] = isBefore(day, anchor) ? [day, anchor] : [anchor, day];
    setAnchor(undefined);
    onChange({ from: toParam(first), to: toParam(last) });
    setOpen(false);
  };

  const focusDay = (day: Date) => {
    moveFocus.current = true;
    setFocused(day);
    if (isBefore(day, startOfMonth(month))) setMonth(startOfMonth(day));
    else if (isAfter(day, endOfMonth(addMonths(month, 1)))) setMonth(startOfMonth(addMonths(day, -1)));
  };

  const onKeyDown = (e: KeyboardEvent, day: Date) => {
    const move = KEY_MOVES[e.key];
    if (!move) return;
    e.preventDefault();
    focusDay(move(day));
  };

  // what the grid highlights: the chosen range, or the one being chosen up to the day pointed at
  const [lo, hi] = (() => {
    if (anchor) {
      const other = hovered ?? anchor;
      return isBefore(other, anchor) ? [other, anchor] : [anchor, other];
    }
    return [from, to];
  })();
  const inRange = (d: Date) => Boolean(lo && hi && isAfter(d, lo) && isBefore(d, hi));
  const isEnd = (d: Date) => Boolean((lo && isSameDay(d, lo)) || (hi && isSameDay(d, hi)));

  // one day of the months shown is in the Tab order: the focused one, else the first of the left month
  const tabDay = isBefore(focused, month) || isAfter(focused, endOfMonth(addMonths(month, 1))) ? month : focused;
  const label = from && to ? `${short(from)} - ${short(to)}` : 'Pick a date';

  return (
    <Popover
      open={open}
      onOpenChange={onOpenChange}
      aria-label="Choose a date range"
      className={s.pickerPopover}
      initialFocus={tabDayRef}
      trigger={
        <Button variant="secondary">
          <ClockIcon />
          {label}
        </Button>
      }
    >
      <div className={s.calendar} ref={gridRef}>
        <div className={s.months}>
          {[month, addMonths(month, 1)].map((m, i) => (
            <div key={m.toISOString()} className={s.month}>
              <div className={s.monthHeader}>
                {i === 0 ? (
                  <Button variant="ghost" size="icon" aria-label="Previous month" onClick={() => setMonth(addMonths(month, -1))}>
                    <ChevronLeftIcon />
                  </Button>
                ) : null}
                <span className={s.monthTitle} id={`cal-${toParam(m)}`}>
                  {format(m, 'MMMM yyyy')}
                </span>
                {i === 1 ? (
                  <Button variant="ghost" size="icon" aria-label="Next month" onClick={() => setMonth(addMonths(month, 1))}>
                    <ChevronRightIcon />
                  </Button>
                ) : null}
              </div>
              {/* biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the APG date-picker grid is a table with role=grid */}
              <table role="grid" className={s.grid} aria-labelledby={`cal-${toParam(m)}`}>
                <thead>
                  <tr>
                    {WEEKDAYS.map((w) => (
                      <th key={w.getDay()} scope="col" className={s.weekday} aria-label={format(w, 'EEEE')}>
                        <span aria-hidden="true">{format(w, 'EEEEEE')}</span>
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {weeksOf(m).map((week) => (
                    <tr key={week[0]!.toISOString()}>
                      {week.map((d) => {
                        if (!isSameMonth(d, m)) return <td key={d.toISOString()} className={s.dayCell} aria-hidden="true" />;
                        const selected = isEnd(d);
                        return (
                          // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole lint/a11y/useFocusableInteractive: a grid's cell; its day button takes the focus
                          <td key={d.toISOString()} role="gridcell" className={s.dayCell} aria-selected={selected || inRange(d)}>
                            <button
                              type="button"
                              className={s.day}
                              data-day={toParam(d)}
                              data-selected={selected || undefined}
                              data-in-range={inRange(d) || undefined}
                              data-today={isToday(d) || undefined}
                              aria-label={dayLabel(d)}
                              aria-current={isToday(d) ? 'date' : undefined}
                              tabIndex={isSameDay(d, tabDay) ? 0 : -1}
                              ref={isSameDay(d, tabDay) ? tabDayRef : undefined}
                              onClick={() => choose(d)}
                              onFocus={() => setFocused(d)}
                              onMouseEnter={() => setHovered(d)}
                              onMouseLeave={() => setHovered(undefined)}
                              onKeyDown={(e) => onKeyDown(e, d)}
                            >
                              {format(d, 'd')}
                            </button>
                          </td>
                        );
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
        </div>
        <div className={s.pickerFooter}>
          <span role="status">{anchor ? `From ${dayLabel(anchor)}: choose the last day` : 'Choose the first day'}</span>
          {from || to ? (
            <Button
              variant="ghost"
              size="sm"
              onClick={() => {
                setAnchor(undefined);
                onChange(undefined);
                setOpen(false);
              }}
            >
              Clear dates
            </Button>
          ) : null}
        </div>
      </div>
    </Popover>
  );
}
