"""The screen side of `ModalRequest`: open the modal a pane asked for, hand the answer back."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

from swetui.agent import ChangePrice, ContextChange, EditChange, mcp_arguments_text
from swetui.text import one_line
from swetui.ui.screens.batch_review import BatchReview
from swetui.ui.screens.deny_reason import DenyReason
from swetui.ui.screens.item_editor import EditorResult, ItemEditor
from swetui.ui.screens.item_preview import ItemPreview
from swetui.ui.screens.request_view import RequestView
from swetui.ui.widgets.modal_requests import (
    ApprovalEditRequested,
    BatchReviewRequested,
    DenyReasonRequested,
    ItemEditRequested,
    ItemPreviewRequested,
    ModalRequest,
    RequestViewRequested,
)


def open_modal(app: App[object], request: ModalRequest,
               price: Callable[[ContextChange], ChangePrice] | None = None) -> None:
    """Push the modal `request` asks for; its answer goes to the request's callback.
    `price` prices a change to the context (the item editor shows what saving costs)."""
    match request:
        case DenyReasonRequested(action=action, deny=deny):
            def denied(reason: str | None) -> None:
                if reason is not None:
                    deny(reason)

            app.push_screen(DenyReason(action), denied)
        case ApprovalEditRequested(action=action, approve=approve):
            if action.kind == "bash":
                text, title, subtitle = (action.command or "", "Edit the command, then approve",
                                         action.cwd)
            elif action.kind == "mcp":
                text, title = mcp_arguments_text(action.call), f"Edit the arguments of " \
                    f"{one_line(action.call.name)}, then approve"
                subtitle = "a JSON object, sent to the MCP server as it is"
            else:
                text, title = action.new_content or "", f"Edit {action.path}, then approve"
                subtitle = "the file as it will be written"

            def edited(result: EditorResult | None) -> None:
                if result is not None and result.text is not None:
                    approve(result.text)

            app.push_screen(ItemEditor(title, text, subtitle=subtitle, save_label="approve"),
                            edited)
        case BatchReviewRequested(actions=actions, decide=decide):
            def reviewed(choices: dict[str, bool] | None) -> None:
                if choices:
                    decide(choices)

            app.push_screen(BatchReview(actions), reviewed)
        case ItemEditRequested(item=item, save=save, revert=revert):
            def saved(result: EditorResult | None) -> None:
                if result is None:
                    return
                if result.revert:
                    revert()
                elif result.text is not None:
                    save(result.text)

            def edit_price(text: str) -> str:
                return price(EditChange(item.id, text)).line() if price is not None else ""

            app.push_screen(ItemEditor.for_item(item, edit_price if price else None), saved)
        case ItemPreviewRequested(item=item, sent_tokens=tokens):
            app.push_screen(ItemPreview(item, tokens))
        case RequestViewRequested(engine=engine):
            app.push_screen(RequestView(engine.assemble(), engine))
