import * as Ariakit from '@ariakit/react';
import { useLayoutEffect, useRef } from 'react';
import { Button } from '../button/button';
import { cx } from '../cx';
import { CheckIcon, ChevronDownIcon } from '../icons';
import type { Activation } from '../lazy-control';
import type { MenuItemProps, MenuProps } from './menu';
import * as s from './menu.css';

export interface AriakitMenuProps extends MenuProps {
  /** mounted open, as the stand-in in menu.tsx was used: by a click or by a key */
  openedBy?: Activation;
}

/** The Ariakit menu behind `Menu` (menu.tsx), loaded when a menu is first used. */
export function AriakitMenu({
  label,
  'aria-label': ariaLabel,
  trigger,
  buttonVariant = 'secondary',
  buttonSize = 'md',
  chevron,
  placement = 'bottom-end',
  values,
  setValues,
  children,
  className,
  openedBy,
}: AriakitMenuProps) {
  const showChevron = chevron ?? !ariaLabel;
  const store = Ariakit.useMenuStore({ placement, values, setValues, defaultOpen: !!openedBy });
  const button = useRef<HTMLButtonElement>(null);
  // Mounted open in place of the stand-in, the menu has not seen its button pressed: do what the press
  // would have done (focus moves into the menu, to its first item when a key opened it) and take the button
  // as the menu's disclosure (closing gives the focus back to it).
  useLayoutEffect(() => {
    if (!openedBy) return;
    store.setDisclosureElement(button.current);
    store.setAutoFocusOnShow(true);
    store.setInitialFocus(openedBy === 'key' ? 'first' : 'container');
  }, [openedBy, store]);
  return (
    <Ariakit.MenuProvider store={store}>
      <Ariakit.MenuButton
        ref={button}
        aria-label={ariaLabel}
        render={trigger ?? <Button variant={buttonVariant} size={buttonSize} />}
      >
        {label}
        {showChevron ? <ChevronDownIcon className={s.chevron} /> : null}
      </Ariakit.MenuButton>
      <Ariakit.Menu gutter={4} portal unmountOnHide className={cx(s.menu, className)}>
        {children}
      </Ariakit.Menu>
    </Ariakit.MenuProvider>
  );
}

/** A menu command. `disabled` keeps it visible but inert (focusable for screen readers). */
export function MenuItem({ destructive, className, ...rest }: MenuItemProps) {
  return <Ariakit.MenuItem accessibleWhenDisabled {...rest} className={cx(s.item, destructive && s.destructive, className)} />;
}

/** A toggle item (role=menuitemcheckbox). Controlled with `checked` + `onChange`, keyed by `name`. */
export function MenuItemCheckbox({ className, children, ...rest }: Ariakit.MenuItemCheckboxProps) {
  return (
    <Ariakit.MenuItemCheckbox {...rest} className={cx(s.item, className)}>
      <Ariakit.MenuItemCheck className={s.check} checked={rest.checked}>
        <CheckIcon />
      </Ariakit.MenuItemCheck>
      {children}
    </Ariakit.MenuItemCheckbox>
  );
}

export function MenuSeparator(props: Ariakit.MenuSeparatorProps) {
  return <Ariakit.MenuSeparator {...props} className={cx(s.separator, props.className)} />;
}

export function MenuGroupLabel(props: Ariakit.MenuGroupLabelProps) {
  return <Ariakit.MenuGroupLabel {...props} className={cx(s.groupLabel, props.className)} />;
}

export const MenuGroup = Ariakit.MenuGroup;
