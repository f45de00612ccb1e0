import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_47_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-47-0'
    return [line.qty * factor for line in cart.lines]


def step_47_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-47-1'
    return [line.qty * factor for line in cart.lines]


def step_47_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-47-2'
    return [line.qty * factor for line in cart.lines]


def step_47_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-47-3'
    return [line.qty * factor for line in cart.lines]

