/** The upload transport the portal gives its ApiClient, for the progress bar of a .zip upload. */
import type { UploadTransport } from '../../src/client/api-client.js';

/** Uploads with XMLHttpRequest, whose upload events report progress (fetch's do not over HTTP/1.1). */
export const xhrUpload: UploadTransport = (url, body, headers, onProgress) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    xhr.addEventListener('load', () => {
      resolve({ status: xhr.status, text: xhr.responseText });
    });
    xhr.addEventListener('error', () => {
      reject(new Error('the upload did not reach the server'));
    });
    xhr.send(body);
  });
