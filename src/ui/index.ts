export { AlertDialog, type AlertDialogProps } from './alert-dialog/alert-dialog';
export { Button, type ButtonProps } from './button/button';
export { Checkbox, type CheckboxProps } from './checkbox/checkbox';
export * from './constants';
export { cx } from './cx';
export { Dialog, type DialogProps } from './dialog/dialog';
export * from './icons';
export {
  Menu,
  MenuGroup,
  MenuGroupLabel,
  MenuItem,
  MenuItemCheckbox,
  type MenuItemProps,
  type MenuProps,
  MenuSeparator,
} from './menu/menu';
export { Popover, PopoverDismiss, type PopoverProps } from './popover/popover';
export { Select, type SelectOption, type SelectProps } from './select/select';
export { Slider, type SliderProps } from './slider/slider';
export { Spinner, type SpinnerProps } from './spinner/spinner';
export { Switch, type SwitchProps } from './switch/switch';
export { Tab, TabList, TabPanel, Tabs, type TabsProps } from './tabs/tabs';
export { TextField, type TextFieldProps } from './text-field/text-field';
export { Textarea, type TextareaProps } from './textarea/textarea';
export { lightTheme, vars } from './theme.css';
export { dismissToast, type ToastOptions, toast, toaster } from './toast/toast';
export { Toaster } from './toast/toaster';
export { Tooltip, type TooltipProps } from './tooltip/tooltip';
