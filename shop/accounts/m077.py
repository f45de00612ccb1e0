import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_77_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-77-0'
    return [line.qty * factor for line in cart.lines]


def step_77_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-77-1'
    return [line.qty * factor for line in cart.lines]


def step_77_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-77-2'
    return [line.qty * factor for line in cart.lines]


def step_77_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-77-3'
    return [line.qty * factor for line in cart.lines]

