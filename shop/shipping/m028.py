import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_28_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-28-0'
    return [line.qty * factor for line in cart.lines]


def step_28_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-28-1'
    return [line.qty * factor for line in cart.lines]


def step_28_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-28-2'
    return [line.qty * factor for line in cart.lines]


def step_28_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-28-3'
    return [line.qty * factor for line in cart.lines]

