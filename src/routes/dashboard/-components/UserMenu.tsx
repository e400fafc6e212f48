import { Link } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { account } from '../../../api/account';
import type { MeResponse } from '../../../api/contract/account';
import { LogOutIcon } from '../../../ui/icons';
import { Menu, MenuItem, MenuSeparator } from '../../../ui/menu/menu';
import * as s from './user-menu.css';

/**
 * GET /account/me once per dashboard visit (a failure leaves the menu generic; the client toasts), unless
 * the dashboard's loader already has the answer.
 */
const loadMe = fromPromise<MeResponse, MeResponse | undefined>(async ({ input }) => input ?? account.me());

const initialsOf = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase())
    .join('') || '?';

export interface UserMenuProps {
  onLogout: () => void;
  /** GET /account/me as the dashboard's loader fetched it */
  initial?: MeResponse | undefined;
}

/** The dashboard header's account menu: photo (or initials) and name; details and Log out inside. */
export function UserMenu({ onLogout, initial }: UserMenuProps) {
  const me = useActorRef(loadMe, { input: initial });
  const details = useSelector(me, (snap) => (snap.status === 'done' ? snap.output.account : undefined));
  const name = details?.name ?? 'Account';
  return (
    <Menu
      aria-label={`Account menu: ${name}`}
      buttonVariant="ghost"
      chevron
      label={
        <>
          {details?.photoUrl ? (
            <img className={s.avatar} src={details.photoUrl} alt="" width={32} height={32} />
          ) : (
            <span className={s.avatar} aria-hidden="true">
              {details ? initialsOf(details.name) : ''}
            </span>
          )}
          <span className={s.name}>{name}</span>
        </>
      }
    >
      {details ? (
        <div className={s.identity}>
          <span className={s.identityName}>{details.name}</span>
          <span className={s.identityMeta}>{details.email}</span>
          <span className={s.identityMeta}>{details.company.name}</span>
        </div>
      ) : null}
      {details ? <MenuSeparator /> : null}
      <MenuItem render={<Link to="/dashboard/settings" />}>Settings</MenuItem>
      <MenuItem onClick={onLogout}>
        <LogOutIcon size={16} />
        Log out
      </MenuItem>
    </Menu>
  );
}
