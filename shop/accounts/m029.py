import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_29_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-29-0'
    return [line.qty * factor for line in cart.lines]


def step_29_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-29-1'
    return [line.qty * factor for line in cart.lines]


def step_29_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-29-2'
    return [line.qty * factor for line in cart.lines]


def step_29_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-29-3'
    return [line.qty * factor for line in cart.lines]

