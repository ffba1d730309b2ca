"""The VRAG agent: the action grammar, views and crops, the search-crop-answer loop, policies, local models and their
server, widgets. Needs no torch (local models import it when used)."""
