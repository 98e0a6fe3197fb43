"""The browser tests' shared testbed: JupyterLab's "Select Kernel" dialog is answered, never waited on.

On a busy machine JupyterLab can ask which kernel to start when a notebook
opens (its kernel list came late); the page driver must then choose the
notebook's kernel and go on. A notebook naming a kernelspec the server does not
have brings that dialog up every time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


def test_a_select_kernel_dialog_is_answered_with_the_notebooks_kernel(jupyter_testbed: JupyterTestbed) -> None:
    """A notebook whose kernel is unknown opens with "Select Kernel"; the page picks its folder's kernel and runs.

    (JupyterLab only: Notebook 7 shows the same dialog, built from the same components.)
    """
    folder = jupyter_testbed.folder("lab", "select-kernel")
    path = folder.write_notebook("unknown-kernel.ipynb", ["import os\nprint(os.environ['GATEWAYKIT_LEDGER_PATH'])"])
    text = path.read_text().replace(f'"name": "{folder.kernel}"', '"name": "no-such-kernel"')
    path.write_text(text)
    with jupyter_testbed.open_notebook(folder, "unknown-kernel.ipynb", ARTIFACTS) as page:
        assert any("Kernel" in title for title in page.answered_dialogs), page.answered_dialogs
        page.run_and_wait(0)
        assert f"{folder.kernel[3:]}.sqlite" in page.output_text(0)  # the folder's kernel, with its environment
        (session,) = folder.server.sessions(folder.notebook_path("unknown-kernel.ipynb"))
        assert session["kernel"]["name"] == folder.kernel
    assert folder.server.sessions(folder.notebook_path("unknown-kernel.ipynb")) == []  # shut down on close
