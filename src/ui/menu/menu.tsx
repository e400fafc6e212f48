import * as Ariakit from '@ariakit/react';
import type { ReactElement, ReactNode } from 'react';
import { Button, type ButtonProps } from '../button/button';
import { cx } from '../cx';
import { CheckIcon, ChevronDownIcon } from '../icons';
import * as s from './menu.css';

export interface MenuProps {
  /** Content of the trigger button. For an icon-only trigger pass `aria-label` too. */
  label: ReactNode;
  'aria-label'?: string;
  /** Replace the default trigger (a Button), e.g. `trigger={<Button variant="ghost" size="icon" />}`. */
  trigger?: ReactElement;
  buttonVariant?: ButtonProps['variant'];
  buttonSize?: ButtonProps['size'];
  /** Show a chevron after the label (default: when label is not icon-only). */
  chevron?: boolean;
  placement?: Ariakit.MenuProviderProps['placement'];
  /** Ariakit menu `values`, for MenuItemCheckbox / MenuItemRadio. */
  values?: Ariakit.MenuProviderProps['values'];
  setValues?: Ariakit.MenuProviderProps['setValues'];
  children: ReactNode;
  className?: string;
}

/**
 * A menu button plus its popup menu (role=menu). Items: MenuItem, MenuItemCheckbox, MenuSeparator, MenuGroupLabel.
 * The items mount when the menu opens (`unmountOnHide`): a table with a menu per row stays cheap to render.
 */
export function Menu({
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
}: MenuProps) {
  const showChevron = chevron ?? !ariaLabel;
  return (
    <Ariakit.MenuProvider placement={placement} values={values} setValues={setValues}>
      <Ariakit.MenuButton aria-label={ariaLabel} render={trigger ?? <Button variant={buttonVariant} size={buttonSize} />}>
        {label}
        {showChevron ? <ChevronDownIcon className={s.chevron} /> : null}
      </Ariakit.MenuButton>
      <Ariakit.Menu gutter={4} portal unmountOnHide className={cx(s.menu, className)}>
        {children}
      </Ariakit.Menu>
    </Ariakit.MenuProvider>
  );
}

export interface MenuItemProps extends Ariakit.MenuItemProps {
  destructive?: boolean;
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
