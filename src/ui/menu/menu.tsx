import type * as Ariakit from '@ariakit/react';
import { cloneElement, type ReactElement, type ReactNode } from 'react';
import { Button, type ButtonProps } from '../button/button';
import { ChevronDownIcon } from '../icons';
import { lazyModule, standInHandlers, useActivation } from '../lazy-control';
import * as s from './menu.css';

export interface MenuProps {
  /** Content of the trigger button. For an icon-only trigger pass `aria-label` too. */
  label: ReactNode;
  'aria-label'?: string;
  /** Replace the default trigger (a Button), e.g. `trigger={<Button variant="ghost" size="icon" />}`. */
  trigger?: ReactElement<Record<string, unknown>>;
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

export interface MenuItemProps extends Ariakit.MenuItemProps {
  destructive?: boolean;
}

/** The Ariakit menu and its items (menu-impl.tsx): downloaded when a menu is first reached for. */
const impl = lazyModule(() => import('./menu-impl'));

/** The loaded implementation, for the items: they only render inside an open menu, after the load. */
function loaded() {
  const m = impl.current;
  if (!m) throw new Error('Menu items render inside a Menu');
  return m;
}

/**
 * A menu button plus its popup menu (role=menu). Items: MenuItem, MenuItemCheckbox, MenuSeparator, MenuGroupLabel.
 * Until it is first used the trigger is a plain button with the same look and name (aria-haspopup=menu,
 * aria-expanded=false); a click or an arrow key mounts the Ariakit menu, open (see `useActivation`).
 * The items mount when the menu opens (`unmountOnHide`): a table with a menu per row stays cheap to render.
 */
export function Menu(props: MenuProps) {
  const activation = useActivation(impl);
  const m = activation.impl;
  if (m) return <m.AriakitMenu {...props} openedBy={activation.activation} />;
  const { label, 'aria-label': ariaLabel, trigger, buttonVariant = 'secondary', buttonSize = 'md', chevron } = props;
  const standIn = {
    'aria-label': ariaLabel,
    'aria-haspopup': 'menu' as const,
    'aria-expanded': false,
    ...standInHandlers(activation),
  };
  const content = (
    <>
      {label}
      {(chevron ?? !ariaLabel) ? <ChevronDownIcon className={s.chevron} /> : null}
    </>
  );
  if (trigger) return cloneElement(trigger, { ...standIn, children: content });
  return (
    <Button type="button" variant={buttonVariant} size={buttonSize} {...standIn}>
      {content}
    </Button>
  );
}

/** A menu command. `disabled` keeps it visible but inert (focusable for screen readers). */
export function MenuItem(props: MenuItemProps) {
  const { MenuItem: Item } = loaded();
  return <Item {...props} />;
}

/** A toggle item (role=menuitemcheckbox). Controlled with `checked` + `onChange`, keyed by `name`. */
export function MenuItemCheckbox(props: Ariakit.MenuItemCheckboxProps) {
  const { MenuItemCheckbox: Item } = loaded();
  return <Item {...props} />;
}

export function MenuSeparator(props: Ariakit.MenuSeparatorProps) {
  const { MenuSeparator: Separator } = loaded();
  return <Separator {...props} />;
}

export function MenuGroupLabel(props: Ariakit.MenuGroupLabelProps) {
  const { MenuGroupLabel: GroupLabel } = loaded();
  return <GroupLabel {...props} />;
}

export function MenuGroup(props: Ariakit.MenuGroupProps) {
  const { MenuGroup: Group } = loaded();
  return <Group {...props} />;
}
