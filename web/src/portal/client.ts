/** The portal's one API client: the session cookie signs its calls, and uploads report their progress. */
import { ApiClient } from '../../../src/client/api-client.js';
import { xhrUpload } from '../xhr-upload.js';

export const client = new ApiClient({ upload: xhrUpload });
