// What a new password must be beyond its length (12 to 1024, checked by the request schema).
import { validationError } from '../../lib/errors.js';

/** A password of spaces only is refused: it is as good as none (the CLI's create-admin refuses it too). */
export function assertUsablePassword(password: string): void {
  if (password.trim() === '') {
    throw validationError([{ loc: ['body', 'new_password'], msg: 'Value error, the password must hold more than spaces', type: 'value_error' }]);
  }
}
